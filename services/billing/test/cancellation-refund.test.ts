import {
  cancellationRefundReference,
  isTrialPeriod,
  publicRefundStatus,
  refundableAmount,
  type PeriodInvoice,
} from '../src/domain/cancellation-refund';

const start = new Date('2027-03-01T00:00:00.000Z');
const previous = new Date('2027-02-01T00:00:00.000Z');

/** A PAID invoice of the current period: the plan line (this period) and optional usage (the last). */
const invoice = (over: Partial<PeriodInvoice> = {}, usage = 0): PeriodInvoice => ({
  status: 'PAID',
  periodStart: start,
  amountPaid: 10_000 + usage,
  amountRefunded: 0,
  lines: [{ amount: 10_000, periodStart: start }, ...(usage ? [{ amount: usage, periodStart: previous }] : [])],
  ...over,
});

describe("P of docs/api-behaviour.md §10: the current period's paid amount after earlier refunds (minor units)", () => {
  it.each<[string, PeriodInvoice | null, number, number]>([
    ['no invoice for the period (trial, paused before paying)', null, 0, 0],
    ['a paid plan line', invoice(), 0, 10_000],
    ['usage billed in arrears is for the ended period, not refundable', invoice({}, 2_500), 0, 10_000],
    ['an OPEN invoice collected nothing', invoice({ status: 'OPEN', amountPaid: 0 }), 0, 0],
    ['a VOID invoice collected nothing', invoice({ status: 'VOID', amountPaid: 0 }), 0, 0],
    ['earlier refunds recorded on the invoice', invoice({ amountRefunded: 4_000 }), 0, 6_000],
    ['refunds still in flight', invoice({ amountRefunded: 1_000 }), 2_000, 7_000],
    ['never below 0', invoice({ amountRefunded: 10_000 }), 500, 0],
    ['a free period', invoice({ amountPaid: 0, lines: [{ amount: 0, periodStart: start }] }), 0, 0],
    ['paid less than the period lines (capped by what was paid)', invoice({ amountPaid: 3_000 }), 0, 3_000],
  ])('%s', (_case, period, inFlight, expected) => {
    expect(refundableAmount(period, inFlight)).toBe(expected);
  });
});

describe('trial periods and refund labels', () => {
  it('a period that starts before the trial end is the trial; paid periods start at or after it', () => {
    expect(isTrialPeriod({ trialEnd: null, currentPeriodStart: start })).toBe(false);
    expect(isTrialPeriod({ trialEnd: new Date('2027-03-15T00:00:00.000Z'), currentPeriodStart: start })).toBe(true);
    expect(isTrialPeriod({ trialEnd: start, currentPeriodStart: start })).toBe(false);
  });

  it('shows PROCESSING (being sent right now) as PENDING; one reference per subscription', () => {
    expect(['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED'].map(publicRefundStatus)).toEqual([
      'PENDING',
      'PENDING',
      'PROCESSED',
      'FAILED',
    ]);
    const id = '0b9f7c2e-8d51-4c1a-9a57-3f1f0f4c2a10';
    expect(cancellationRefundReference(id)).toBe(cancellationRefundReference(id));
    expect(cancellationRefundReference(id)).toMatch(/^[A-Za-z0-9.=-]+$/); // what Paystack accepts in a reference
  });
});
