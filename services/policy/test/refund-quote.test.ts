import { quoteRefund, type PaidPeriod, type RefundRules } from '../src/domain/refund-quote';

// A 30-day period of 100.00 NGN (10,000 kobo), from Jan 1 to Jan 31 2026.
const start = new Date('2026-01-01T00:00:00Z');
const end = new Date('2026-01-31T00:00:00Z');
const day = (n: number) => new Date(start.getTime() + n * 24 * 60 * 60 * 1000);
const period = (over: Partial<PaidPeriod> = {}): PaidPeriod => ({
  start,
  end,
  refundableAmount: 10_000,
  isTrial: false,
  ...over,
});
const rules = (over: Partial<RefundRules> = {}): RefundRules => ({
  refundType: 'FULL',
  refundPercentage: null,
  refundWindowDays: 0,
  prorateRefund: false,
  cancellationFee: 0,
  ...over,
});

// Every expected amount below is worked out by hand from docs/api-behaviour.md §10.
const cases: [string, RefundRules, PaidPeriod, Date, number, string][] = [
  // refund types
  ['FULL refunds the whole paid amount', rules(), period(), day(10), 10_000, 'computed'],
  [
    'PARTIAL 0% refunds nothing',
    rules({ refundType: 'PARTIAL', refundPercentage: 0 }),
    period(),
    day(10),
    0,
    'computed',
  ],
  [
    'PARTIAL 50% refunds half',
    rules({ refundType: 'PARTIAL', refundPercentage: 50 }),
    period(),
    day(10),
    5_000,
    'computed',
  ],
  [
    'PARTIAL 100% refunds all',
    rules({ refundType: 'PARTIAL', refundPercentage: 100 }),
    period(),
    day(10),
    10_000,
    'computed',
  ],
  ['NONE refunds nothing', rules({ refundType: 'NONE' }), period(), day(1), 0, 'no_refund_policy'],
  // refund window
  ['window 0 has no time limit (day 29)', rules({ refundWindowDays: 0 }), period(), day(29), 10_000, 'computed'],
  ['inside a 7-day window (day 3)', rules({ refundWindowDays: 7 }), period(), day(3), 10_000, 'computed'],
  ['exactly at the window boundary is outside', rules({ refundWindowDays: 7 }), period(), day(7), 0, 'outside_window'],
  [
    'one millisecond before the boundary is inside',
    rules({ refundWindowDays: 7 }),
    period(),
    new Date(day(7).getTime() - 1),
    10_000,
    'computed',
  ],
  ['outside a 7-day window (day 10)', rules({ refundWindowDays: 7 }), period(), day(10), 0, 'outside_window'],
  // proration
  ['prorated at the period start: all unused', rules({ prorateRefund: true }), period(), day(0), 10_000, 'computed'],
  [
    'prorated at exactly half: 15 of 30 days unused',
    rules({ prorateRefund: true }),
    period(),
    day(15),
    5_000,
    'computed',
  ],
  ['prorated at the period end: nothing unused', rules({ prorateRefund: true }), period(), day(30), 0, 'computed'],
  [
    'prorated PARTIAL 50% at half: 10,000 x 0.5 x 0.5',
    rules({ refundType: 'PARTIAL', refundPercentage: 50, prorateRefund: true }),
    period(),
    day(15),
    2_500,
    'computed',
  ],
  // cancellation fee
  [
    'fee smaller than the refund: 10,000 - 1,500',
    rules({ cancellationFee: 1_500 }),
    period(),
    day(1),
    8_500,
    'computed',
  ],
  ['fee equal to the refund', rules({ cancellationFee: 10_000 }), period(), day(1), 0, 'computed'],
  [
    'fee larger than the refund never goes below 0',
    rules({ cancellationFee: 12_000 }),
    period(),
    day(1),
    0,
    'computed',
  ],
  [
    'fee after proration: 5,000 - 1,000',
    rules({ prorateRefund: true, cancellationFee: 1_000 }),
    period(),
    day(15),
    4_000,
    'computed',
  ],
  // trial, earlier refunds
  ['a trial period refunds nothing', rules(), period({ isTrial: true, refundableAmount: 0 }), day(1), 0, 'trial'],
  ['a trial refunds nothing even with an amount', rules(), period({ isTrial: true }), day(1), 0, 'trial'],
  [
    'a partly refunded invoice: 50% of the 7,000 left',
    rules({ refundType: 'PARTIAL', refundPercentage: 50 }),
    period({ refundableAmount: 7_000 }),
    day(1),
    3_500,
    'computed',
  ],
  [
    'a fully refunded invoice refunds nothing more',
    rules(),
    period({ refundableAmount: 0 }),
    day(1),
    0,
    'no_paid_amount',
  ],
  // rounding in NGN (kobo), once, half up
  [
    '50% of 1,001 kobo = 500.5 -> 501',
    rules({ refundType: 'PARTIAL', refundPercentage: 50 }),
    period({ refundableAmount: 1_001 }),
    day(1),
    501,
    'computed',
  ],
  [
    'prorated 20 of 30 days of 10,000 = 6,666.67 -> 6,667',
    rules({ prorateRefund: true }),
    period(),
    day(10),
    6_667,
    'computed',
  ],
  [
    '33.33% of 5,000 = 1,666.5 -> 1,667',
    rules({ refundType: 'PARTIAL', refundPercentage: 33.33 }),
    period({ refundableAmount: 5_000 }),
    day(1),
    1_667,
    'computed',
  ],
  [
    'rounded once: 33.33% x 20/30 of 10,000 = 2,222 exactly',
    rules({ refundType: 'PARTIAL', refundPercentage: 33.33, prorateRefund: true }),
    period(),
    day(10),
    2_222,
    'computed',
  ],
  [
    'rounded once: 25% x 20/30 of 1,001 - 10 = 156.83 -> 157',
    rules({ refundType: 'PARTIAL', refundPercentage: 25, prorateRefund: true, cancellationFee: 10 }),
    period({ refundableAmount: 1_001 }),
    day(10),
    157,
    'computed',
  ],
];

describe('quoteRefund (docs/api-behaviour.md §10)', () => {
  it.each(cases)('%s', (_name, policy, paid, at, amount, reason) => {
    expect(quoteRefund(policy, paid, at)).toEqual({ amount, reason });
  });
});
