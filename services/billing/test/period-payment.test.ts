import {
  heldBeforeTaxForPeriod,
  heldForPeriod,
  heldOfInvoice,
  type PeriodInvoiceMoney,
} from '../src/domain/period-payment';

/**
 * P of docs/api-behaviour.md §10 and §18: what the current period was paid and the platform still
 * holds. Amounts in minor units, worked out by hand beside each row.
 */

const line = (type: string, amount: number) => ({ type, amount });
/** An invoice of these lines; its amount is their sum (no exclusive tax) unless `over` says. */
const paid = (lines: PeriodInvoiceMoney['lines'], over: Partial<PeriodInvoiceMoney> = {}): PeriodInvoiceMoney => ({
  status: 'PAID',
  amount: lines.reduce((total, l) => total + l.amount, 0),
  amountRefunded: 0,
  lines,
  ...over,
});

describe('P of one invoice', () => {
  it.each<[string, PeriodInvoiceMoney, number]>([
    ['a renewal paid in full', paid([line('SUBSCRIPTION', 10_000)]), 10_000],
    ['a renewal at 100% off was paid 0', paid([line('SUBSCRIPTION', 10_000), line('DISCOUNT', -10_000)]), 0],
    ['a renewal at 25% off was paid 7,500', paid([line('SUBSCRIPTION', 10_000), line('DISCOUNT', -2_500)]), 7_500],
    // Discount 3,000 on 10,000 + 5,000 usage: the plan's share is 3,000 x 10,000 / 15,000 = 2,000.
    [
      'usage is not P, nor its share of the discount',
      paid([line('SUBSCRIPTION', 10_000), line('USAGE', 5_000), line('DISCOUNT', -3_000)]),
      8_000,
    ],
    // Discount 1 on 1 + 2 (a 1-off coupon on odd lines): the plan's share 1 x 1 / 3 = 0.33 -> 0.
    ['the discount share rounds once', paid([line('SUBSCRIPTION', 1), line('USAGE', 2), line('DISCOUNT', -1)]), 1],
    ['an OPEN renewal collected nothing', paid([line('SUBSCRIPTION', 10_000)], { status: 'OPEN' }), 0],
    [
      'an UNCOLLECTIBLE renewal collected nothing',
      paid([line('SUBSCRIPTION', 10_000)], { status: 'UNCOLLECTIBLE' }),
      0,
    ],
    ['a VOID invoice collected nothing', paid([line('SUBSCRIPTION', 10_000)], { status: 'VOID' }), 0],
    ['refunds are given back', paid([line('SUBSCRIPTION', 10_000)], { amountRefunded: 4_000 }), 6_000],
    // A downgrade in the period: -5,000 unused credit returned, +1,000 for the new plan's rest.
    [
      'a change in the period returns its credit and adds its charge',
      paid([line('PRORATION', -5_000), line('PRORATION', 1_000)]),
      -4_000,
    ],
    // An upgrade at 50% off: +8,000 for the new plan less 4,000 off; -2,000 returned.
    [
      "a change's charge after its discount",
      paid([line('PRORATION', -2_000), line('PRORATION', 8_000), line('DISCOUNT', -4_000)]),
      2_000,
    ],
    // Monthly -> annual: the annual line opens the period; the -5,000 was the month's, not this one's.
    [
      "a change to another interval opens the period: its credit is the old period's",
      paid([line('PRORATION', -5_000), line('SUBSCRIPTION', 100_000)]),
      100_000,
    ],
    // 7.5% exclusive VAT on 10,000: amount 10,750, all of it held (docs/api-behaviour.md §21).
    [
      'a renewal with exclusive tax holds the tax too',
      paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750 }),
      10_750,
    ],
    // 25% off, then 7.5% of 7,500 = 562.5 -> 563 (rounded on the invoice): 8,063.
    [
      'a discounted renewal holds the tax of what was left',
      paid([line('SUBSCRIPTION', 10_000), line('DISCOUNT', -2_500)], { amount: 8_063 }),
      8_063,
    ],
    // Usage 5,000 beside the plan's 10,000, 7.5% on 15,000 = 1,125: the plan's share 750.
    [
      "usage's tax is not P either",
      paid([line('SUBSCRIPTION', 10_000), line('USAGE', 5_000)], { amount: 16_125 }),
      10_750,
    ],
    // A downgrade returned 5,000 and charged 1,000, with their 7.5%: -4,000 - 300.
    [
      "a change's credit carried its tax back",
      paid([line('PRORATION', -5_000), line('PRORATION', 1_000)], { amount: -4_300 }),
      -4_300,
    ],
    // Refunds are cash, tax included: 10,750 paid, 10,750 refunded.
    [
      'a taxed renewal refunded in full holds nothing',
      paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750, amountRefunded: 10_750 }),
      0,
    ],
  ])('%s', (_case, invoice, expected) => {
    expect(heldOfInvoice(invoice)).toBe(expected);
  });
});

describe('P of a period: its invoices together, never below 0', () => {
  it('a month of 10,000, then a downgrade at the middle to 2,000: 10,000 - 5,000 + 1,000 = 6,000', () => {
    expect(
      heldForPeriod([
        paid([line('SUBSCRIPTION', 10_000)]),
        paid([line('PRORATION', -5_000), line('PRORATION', 1_000)]),
      ]),
    ).toBe(6_000);
  });

  it('a period paid at 0 and a downgrade crediting nothing: 0, never below', () => {
    expect(
      heldForPeriod([
        paid([line('SUBSCRIPTION', 10_000), line('DISCOUNT', -10_000)]),
        paid([line('PRORATION', 0), line('PRORATION', 1_000), line('DISCOUNT', -1_000)]),
      ]),
    ).toBe(0);
    expect(
      heldForPeriod([paid([line('SUBSCRIPTION', 1_000)], { amountRefunded: 1_000 }), paid([line('PRORATION', -1)])]),
    ).toBe(0);
  });

  it('no invoice: 0', () => {
    expect(heldForPeriod([])).toBe(0);
  });
});

/**
 * The unused-time line of a plan change is a share of P before its exclusive tax: the change's
 * invoice taxes that (negative) line like any other, which carries the tax back (§18, §21).
 */
describe("P before exclusive tax, the base of a change's unused-time credit", () => {
  it('no exclusive tax: P itself', () => {
    expect(heldBeforeTaxForPeriod([paid([line('SUBSCRIPTION', 10_000)])])).toBe(10_000);
  });

  it('10,000 + 7.5% paid: 10,000 before tax (10,750 with it)', () => {
    const period = [paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750 })];
    expect([heldForPeriod(period), heldBeforeTaxForPeriod(period)]).toEqual([10_750, 10_000]);
  });

  it('after a downgrade in the period (-5,000 + 1,000, with 7.5%): 6,000 before tax, 6,450 with it', () => {
    const period = [
      paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750 }),
      paid([line('PRORATION', -5_000), line('PRORATION', 1_000)], { amount: -4_300 }),
    ];
    expect([heldForPeriod(period), heldBeforeTaxForPeriod(period)]).toEqual([6_450, 6_000]);
  });

  it('a refund of 2,150 of 10,750 leaves 8,600 held, 8,000 of it before tax (8,600 x 10,000 / 10,750)', () => {
    const period = [paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750, amountRefunded: 2_150 })];
    expect([heldForPeriod(period), heldBeforeTaxForPeriod(period)]).toEqual([8_600, 8_000]);
  });

  it('nothing held: 0', () => {
    expect(heldBeforeTaxForPeriod([paid([line('SUBSCRIPTION', 10_000)], { amount: 10_750, status: 'OPEN' })])).toBe(0);
  });
});
