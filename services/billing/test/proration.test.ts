import { NO_TAX, totalInvoice, type InvoiceDiscount } from '../src/domain/invoice-totals';
import { prorate, prorationLines, unusedSeconds, type ProratedPlan } from '../src/domain/proration';

/**
 * Proration of immediate plan changes (docs/api-behaviour.md §18, 16.24). Every expected amount
 * below is worked out by hand in the comment beside it: minor units (kobo), seconds, one rounding
 * per line, half away from zero.
 */

const d = (iso: string) => new Date(iso);
const plan = (name: string, amount: number, interval: ProratedPlan['interval'] = 'monthly'): ProratedPlan => ({
  name,
  amount,
  interval,
  intervalCount: 1,
});

// NGN 10,000 and 20,000 a month; NGN 9,999.99 and 15,000 for the half-kobo case; NGN 100,000 a year.
const BASIC = plan('Basic', 1_000_000);
const PRO = plan('Pro', 2_000_000);
const ODD = plan('Odd', 999_999);
const PLUS = plan('Plus', 1_500_000);
const ANNUAL = plan('Annual', 10_000_000, 'annually');

// April 2027: 30 days = 2,592,000 s.
const APRIL = { start: d('2027-04-01T00:00:00.000Z'), end: d('2027-05-01T00:00:00.000Z') };
// A subscription anchored on Jan 31 10:00: Jan 31 -> Feb 28 (28 days = 2,419,200 s), then
// Feb 28 -> Mar 31 (31 days = 2,678,400 s) (docs/api-behaviour.md §4 month-end clamping).
const FEBRUARY = { start: d('2027-01-31T10:00:00.000Z'), end: d('2027-02-28T10:00:00.000Z') };
const MARCH = { start: d('2027-02-28T10:00:00.000Z'), end: d('2027-03-31T10:00:00.000Z') };

interface Row {
  name: string;
  from: ProratedPlan;
  to: ProratedPlan;
  period: { start: Date; end: Date };
  at: string;
  proration?: 'IMMEDIATE' | 'NONE';
  /** P, what the period was paid and is still held; the old plan's full price when not given. */
  paid?: number;
  /** [type, description, amount, period start, period end] of each line, in order. */
  lines: [string, string, number, string, string][];
  /** The sum of the lines (the invoice's subtotal). */
  total: number;
}

const MAY_1 = '2027-05-01T00:00:00.000Z';

const rows: Row[] = [
  {
    // unused = 2,592,000 of 2,592,000 s: the whole of both prices.
    name: 'upgrade at the first second of the period',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-01T00:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -1_000_000, '2027-04-01T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Pro', 2_000_000, '2027-04-01T00:00:00.000Z', MAY_1],
    ],
    total: 1_000_000,
  },
  {
    // unused = 1,296,000 of 2,592,000 s = 1/2: -500,000 and +1,000,000.
    name: 'upgrade at the exact middle (15 of 30 days)',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -500_000, '2027-04-16T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Pro', 1_000_000, '2027-04-16T00:00:00.000Z', MAY_1],
    ],
    total: 500_000,
  },
  {
    // The middle plus 999 ms: the second begun is not used yet, still 1,296,000 s unused.
    name: 'upgrade within the middle second prorates as the middle (whole seconds)',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-16T00:00:00.999Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -500_000, '2027-04-16T00:00:00.999Z', MAY_1],
      ['PRORATION', 'Remaining time on Pro', 1_000_000, '2027-04-16T00:00:00.999Z', MAY_1],
    ],
    total: 500_000,
  },
  {
    // unused = 1 s: 1,000,000 / 2,592,000 = 0.386 -> 0; 2,000,000 / 2,592,000 = 0.772 -> 1.
    name: 'upgrade in the last second of the period',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-30T23:59:59.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', 0, '2027-04-30T23:59:59.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Pro', 1, '2027-04-30T23:59:59.000Z', MAY_1],
    ],
    total: 1,
  },
  {
    name: 'downgrade at the first second of the period',
    from: PRO,
    to: BASIC,
    period: APRIL,
    at: '2027-04-01T00:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Pro', -2_000_000, '2027-04-01T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Basic', 1_000_000, '2027-04-01T00:00:00.000Z', MAY_1],
    ],
    total: -1_000_000,
  },
  {
    // 1/2 of 2,000,000 back, 1/2 of 1,000,000 charged: -500,000 for the balance.
    name: 'downgrade at the exact middle',
    from: PRO,
    to: BASIC,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Pro', -1_000_000, '2027-04-16T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Basic', 500_000, '2027-04-16T00:00:00.000Z', MAY_1],
    ],
    total: -500_000,
  },
  {
    // unused = 1 s: -0.772 -> -1; +0.386 -> 0.
    name: 'downgrade in the last second of the period',
    from: PRO,
    to: BASIC,
    period: APRIL,
    at: '2027-04-30T23:59:59.500Z',
    lines: [
      ['PRORATION', 'Unused time on Pro', -1, '2027-04-30T23:59:59.500Z', MAY_1],
      ['PRORATION', 'Remaining time on Basic', 0, '2027-04-30T23:59:59.500Z', MAY_1],
    ],
    total: -1,
  },
  {
    // Jan 31 -> Feb 28 is 28 days; Feb 14 10:00 leaves 14 days = 1,209,600 of 2,419,200 s = 1/2.
    // 999,999 / 2 = 499,999.5 -> 500,000 (half away from zero), so the credit is -500,000;
    // 1,500,000 / 2 = 750,000.
    name: 'month-end anchor: the Feb 28 period, at its middle, rounds a half kobo away from zero',
    from: ODD,
    to: PLUS,
    period: FEBRUARY,
    at: '2027-02-14T10:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Odd', -500_000, '2027-02-14T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
      ['PRORATION', 'Remaining time on Plus', 750_000, '2027-02-14T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
    ],
    total: 250_000,
  },
  {
    // 10 days (864,000 s) left of a 28-day period (2,419,200 s): 1,000,000 x 864,000 / 2,419,200
    // = 357,142.857 -> 357,143; 2,000,000 x ... = 714,285.714 -> 714,286.
    name: '10 days left of a 28-day month (Feb)',
    from: BASIC,
    to: PRO,
    period: FEBRUARY,
    at: '2027-02-18T10:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -357_143, '2027-02-18T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
      ['PRORATION', 'Remaining time on Pro', 714_286, '2027-02-18T10:00:00.000Z', '2027-02-28T10:00:00.000Z'],
    ],
    total: 357_143,
  },
  {
    // The same 10 days of the 31-day Feb 28 -> Mar 31 period (2,678,400 s) are worth less:
    // 1,000,000 x 864,000 / 2,678,400 = 322,580.645 -> 322,581; 2,000,000 x ... = 645,161.29 -> 645,161.
    name: '10 days left of a 31-day month (Feb 28 -> Mar 31 after the clamp)',
    from: BASIC,
    to: PRO,
    period: MARCH,
    at: '2027-03-21T10:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -322_581, '2027-03-21T10:00:00.000Z', '2027-03-31T10:00:00.000Z'],
      ['PRORATION', 'Remaining time on Pro', 645_161, '2027-03-21T10:00:00.000Z', '2027-03-31T10:00:00.000Z'],
    ],
    total: 322_580,
  },
  {
    name: 'NONE with the same interval: no lines (the new price applies from the next renewal)',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    proration: 'NONE',
    lines: [],
    total: 0,
  },
  {
    // A new yearly period starts at the change: NGN 100,000 for Apr 16 2027 -> Apr 16 2028, less
    // half of the monthly NGN 10,000 not used: 10,000,000 - 500,000 = 9,500,000.
    name: 'monthly -> annual in the middle of April: a new period from now, minus the unused month',
    from: BASIC,
    to: ANNUAL,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    lines: [
      ['PRORATION', 'Unused time on Basic', -500_000, '2027-04-16T00:00:00.000Z', MAY_1],
      ['SUBSCRIPTION', 'Annual', 10_000_000, '2027-04-16T00:00:00.000Z', '2028-04-16T00:00:00.000Z'],
    ],
    total: 9_500_000,
  },
  {
    name: 'monthly -> annual with NONE: the new period in full, no credit',
    from: BASIC,
    to: ANNUAL,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    proration: 'NONE',
    lines: [['SUBSCRIPTION', 'Annual', 10_000_000, '2027-04-16T00:00:00.000Z', '2028-04-16T00:00:00.000Z']],
    total: 10_000_000,
  },
  {
    // Paid 750,000 (25% off) for April: unused 1/2 of P = 375,000, not half the list price.
    name: 'a discounted period credits the unused share of what was paid',
    from: BASIC,
    to: PRO,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    paid: 750_000,
    lines: [
      ['PRORATION', 'Unused time on Basic', -375_000, '2027-04-16T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Pro', 1_000_000, '2027-04-16T00:00:00.000Z', MAY_1],
    ],
    total: 625_000,
  },
  {
    // A 100% coupon: P = 0, so no credit, however early the change.
    name: 'a period paid at 0 credits nothing',
    from: PRO,
    to: BASIC,
    period: APRIL,
    at: '2027-04-01T00:00:00.000Z',
    paid: 0,
    lines: [
      ['PRORATION', 'Unused time on Pro', 0, '2027-04-01T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Basic', 1_000_000, '2027-04-01T00:00:00.000Z', MAY_1],
    ],
    total: 1_000_000,
  },
  {
    // The renewal invoice is still OPEN (or ended UNCOLLECTIBLE): P = 0, no credit for the period.
    name: 'an unpaid period credits nothing on a downgrade',
    from: PRO,
    to: BASIC,
    period: APRIL,
    at: '2027-04-16T00:00:00.000Z',
    paid: 0,
    lines: [
      ['PRORATION', 'Unused time on Pro', 0, '2027-04-16T00:00:00.000Z', MAY_1],
      ['PRORATION', 'Remaining time on Basic', 500_000, '2027-04-16T00:00:00.000Z', MAY_1],
    ],
    total: 500_000,
  },
  {
    // Annual paid at 0 (100% coupon) -> monthly: no credit; the month in full.
    name: 'annual paid at 0 -> monthly: the new period in full, no credit',
    from: ANNUAL,
    to: BASIC,
    period: { start: d('2027-04-01T00:00:00.000Z'), end: d('2028-04-01T00:00:00.000Z') },
    at: '2027-04-16T00:00:00.000Z',
    paid: 0,
    lines: [
      ['PRORATION', 'Unused time on Annual', 0, '2027-04-16T00:00:00.000Z', '2028-04-01T00:00:00.000Z'],
      ['SUBSCRIPTION', 'Basic', 1_000_000, '2027-04-16T00:00:00.000Z', '2027-05-16T00:00:00.000Z'],
    ],
    total: 1_000_000,
  },
];

describe('proration of an immediate plan change (whole seconds, one rounding per line)', () => {
  it.each(rows)('$name', (row) => {
    const { lines } = prorationLines({
      oldPlan: row.from,
      newPlan: row.to,
      period: row.period,
      at: d(row.at),
      proration: row.proration ?? 'IMMEDIATE',
      paidForPeriod: row.paid ?? row.from.amount,
    });
    expect(
      lines.map((l) => [l.type, l.description, l.amount, l.periodStart.toISOString(), l.periodEnd.toISOString()]),
    ).toEqual(row.lines);
    expect(lines.every((l) => l.quantity === '1' && l.unitAmount === l.amount && !Object.is(l.amount, -0))).toBe(true);
    expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(row.total);
  });

  it('counts seconds: the period and its unused part, whole seconds elapsed', () => {
    expect(unusedSeconds(APRIL, d('2027-04-01T00:00:00.000Z'))).toEqual({ unused: 2_592_000, total: 2_592_000 });
    expect(unusedSeconds(APRIL, d('2027-04-16T00:00:00.000Z'))).toEqual({ unused: 1_296_000, total: 2_592_000 });
    expect(unusedSeconds(APRIL, d('2027-04-30T23:59:59.999Z'))).toEqual({ unused: 1, total: 2_592_000 });
    expect(unusedSeconds(FEBRUARY, d('2027-02-14T10:00:00.000Z'))).toEqual({ unused: 1_209_600, total: 2_419_200 });
    expect(unusedSeconds(MARCH, d('2027-03-21T10:00:00.000Z'))).toEqual({ unused: 864_000, total: 2_678_400 });
  });

  it('refuses a change outside the period (the renewal is due first)', () => {
    expect(() => unusedSeconds(APRIL, d(MAY_1))).toThrow(RangeError);
    expect(() => unusedSeconds(APRIL, d('2027-03-31T23:59:59.999Z'))).toThrow(RangeError);
  });

  it('rounds once, half away from zero, on both signs', () => {
    expect(prorate(999_999, 1, 2)).toBe(500_000); // 499,999.5
    expect(-prorate(999_999, 1, 2)).toBe(-500_000);
    expect(prorate(3, 1, 2)).toBe(2); // 1.5
    expect(prorate(1, 1, 3)).toBe(0); // 0.333
    expect(prorate(0, 1, 2)).toBe(0);
  });
});

/**
 * The invoice a change makes: its lines through totalInvoice (the one place the order discount ->
 * balance -> charge is written). Each row states the whole invoice, worked out by hand.
 */
describe('a plan change invoice through totalInvoice, with a discount and a balance in play', () => {
  const tenPercent: InvoiceDiscount = { percentOff: '10', amountOff: null, description: 'TEN (10% off)' };
  const quarter: InvoiceDiscount = { percentOff: '25', amountOff: null, description: 'QUARTER (25% off)' };
  const half: InvoiceDiscount = { percentOff: '50', amountOff: null, description: 'HALF (50% off)' };
  const at = d('2027-04-16T00:00:00.000Z');
  const linesOf = (from: ProratedPlan, to: ProratedPlan) =>
    prorationLines({
      oldPlan: from,
      newPlan: to,
      period: APRIL,
      at,
      proration: 'IMMEDIATE',
      paidForPeriod: from.amount,
    }).lines;

  it.each([
    {
      // Lines -500,000 + 1,000,000 = 500,000. The discount covers the positive PRORATION line
      // (§19): 25% of 1,000,000 = 250,000 off -> 250,000. Balance 200,000 pays part: 50,000 due.
      name: 'upgrade at the middle, 25% off, balance NGN 2,000',
      lines: linesOf(BASIC, PRO),
      discount: quarter,
      balance: 200_000,
      expected: {
        subtotal: 500_000,
        discount: 250_000,
        amount: 250_000,
        creditApplied: 200_000,
        amountDue: 50_000,
        creditToBalance: 0,
      },
    },
    {
      // Lines -1,000,000 + 500,000 = -500,000: owed to the customer, added to the balance; the
      // balance already there is not used (nothing to pay); 0 due.
      name: 'downgrade at the middle, balance NGN 1,000',
      lines: linesOf(PRO, BASIC),
      discount: null,
      balance: 100_000,
      expected: {
        subtotal: -500_000,
        discount: 0,
        amount: -500_000,
        creditApplied: 0,
        amountDue: 0,
        creditToBalance: 500_000,
      },
    },
    {
      // Monthly -> annual: -500,000 + 10,000,000 = 9,500,000. 10% off the SUBSCRIPTION line
      // (10,000,000) = 1,000,000 -> 8,500,000; balance 300,000 applied -> 8,200,000 due.
      name: 'monthly -> annual at the middle, 10% off, balance NGN 3,000',
      lines: prorationLines({
        oldPlan: BASIC,
        newPlan: ANNUAL,
        period: APRIL,
        at,
        proration: 'IMMEDIATE',
        paidForPeriod: BASIC.amount,
      }).lines,
      discount: tenPercent,
      balance: 300_000,
      expected: {
        subtotal: 9_500_000,
        discount: 1_000_000,
        amount: 8_500_000,
        creditApplied: 300_000,
        amountDue: 8_200_000,
        creditToBalance: 0,
      },
    },
    {
      // A metered plan bills its usage up to the change on the same invoice: 120 units at NGN 10
      // = 120,000. Lines -500,000 + 1,000,000 + 120,000 = 620,000; 50% off the positive
      // PRORATION and USAGE lines (1,120,000) = 560,000 -> 60,000; balance 1,000,000 covers it:
      // 60,000 applied, 0 due.
      name: 'upgrade at the middle with usage up to the change, 50% off, balance NGN 10,000',
      lines: [...linesOf(BASIC, PRO), { type: 'USAGE' as const, amount: 120_000 }],
      discount: half,
      balance: 1_000_000,
      expected: {
        subtotal: 620_000,
        discount: 560_000,
        amount: 60_000,
        creditApplied: 60_000,
        amountDue: 0,
        creditToBalance: 0,
      },
    },
  ])('$name', ({ lines, discount, balance, expected }) => {
    expect(totalInvoice(lines, discount, NO_TAX, balance)).toMatchObject({ ...expected, tax: 0 });
  });
});
