import {
  cancellationRefundReference,
  isTrialPeriod,
  publicRefundStatus,
  refundableAmount,
  type PeriodCharge,
} from '../src/domain/cancellation-refund';

const start = new Date('2027-03-01T00:00:00.000Z');

/** The charge that paid the period: 10,000 on the card, nothing refunded yet. */
const charge = (over: Partial<PeriodCharge> = {}): PeriodCharge => ({ amountPaid: 10_000, amountRefunded: 0, ...over });

describe('what cancelling now can give back of P (docs/api-behaviour.md §10), minor units', () => {
  it.each<[string, number, PeriodCharge | null, number, number]>([
    ['no charge paid the period (trial, free, paid by credit alone)', 10_000, null, 0, 0],
    ['P of a paid period', 10_000, charge(), 0, 10_000],
    ['P less refunds still in flight', 9_000, charge({ amountRefunded: 1_000 }), 2_000, 7_000],
    ['never below 0', 0, charge({ amountRefunded: 10_000 }), 500, 0],
    ['P below the charge: a downgrade already returned part as credit', 2_000, charge(), 0, 2_000],
    ['the charge below P: part of the period was paid with credit', 10_000, charge({ amountPaid: 3_000 }), 0, 3_000],
  ])('%s', (_case, held, paidBy, inFlight, expected) => {
    expect(refundableAmount(held, paidBy, inFlight)).toBe(expected);
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
