import fc from 'fast-check';
import type { InvoiceTax } from '@billing/platform';
import {
  classifyMovement,
  contributesToMrr,
  COUPON_DURATIONS,
  monthlyRecurringRevenue,
  mrrAfter,
  mrrSeries,
  PLAN_INTERVALS,
  stateBefore,
  SUBSCRIPTION_STATUSES,
  type MrrChange,
  type MrrSubscription,
} from '../src';

// docs/api-behaviour.md §25: for random subscription histories, every month of every range keeps
// mrr(end) = mrr(start) + new + expansion + reactivation - contraction - churned, and no MRR is
// ever negative.

const RANGE_START = Date.UTC(2024, 0, 1);
const RANGE_END = Date.UTC(2027, 0, 1);

const percentage = fc.integer({ min: 0, max: 9999 }).map((p) => (p / 100).toString());
const tax: fc.Arbitrary<InvoiceTax> = fc.record({
  rates: fc
    .array(fc.record({ percentage, inclusive: fc.boolean() }), { maxLength: 3 })
    .map((rates) => rates.map((r, i) => ({ taxRateId: `txr_${i}`, displayName: 'VAT', ...r }))),
  exempt: fc.constantFrom('NONE' as const, 'EXEMPT' as const, 'REVERSE' as const),
});

const coupon = fc.option(
  fc.record({
    duration: fc.constantFrom(...COUPON_DURATIONS),
    off: fc.oneof(
      fc.integer({ min: 1, max: 10000 }).map((p) => ({ percentOff: (p / 100).toString(), amountOff: null })),
      fc.integer({ min: 1, max: 10_000_000 }).map((a) => ({ percentOff: null, amountOff: a })),
    ),
  }),
  { nil: null },
);

const subscriptionState: fc.Arbitrary<MrrSubscription> = fc.record({
  status: fc.constantFrom(...SUBSCRIPTION_STATUSES),
  plan: fc.record({
    amount: fc.integer({ min: 0, max: 1_000_000_000 }),
    interval: fc.constantFrom(...PLAN_INTERVALS),
    intervalCount: fc.integer({ min: 1, max: 52 }),
  }),
  coupon: coupon.map((c) => (c === null ? null : { duration: c.duration, ...c.off })),
  tax,
});

/** A history: subscription states at random instants, oldest first, as the read model would keep them. */
const history: fc.Arbitrary<MrrChange[]> = fc
  .array(fc.tuple(fc.integer({ min: RANGE_START, max: RANGE_END }), subscriptionState), { maxLength: 12 })
  .map((changes) =>
    changes
      .sort(([a], [b]) => a - b)
      .map(([at, state]) => ({
        at,
        contributing: contributesToMrr(state.status),
        mrr: monthlyRecurringRevenue(state),
      })),
  );

const monthText = (index: number) => `${2024 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
const range = fc
  .tuple(fc.integer({ min: 0, max: 35 }), fc.integer({ min: 0, max: 35 }))
  .map(([a, b]) => [monthText(Math.min(a, b)), monthText(Math.max(a, b))] as const);

describe('the movement identity holds for every month of random histories', () => {
  it('MRR is never negative, whatever the plan, coupon, tax and status', () => {
    fc.assert(
      fc.property(subscriptionState, (state) => {
        const mrr = monthlyRecurringRevenue(state);
        expect(Number.isSafeInteger(mrr) && mrr >= 0).toBe(true);
        if (!contributesToMrr(state.status)) expect(mrr).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('mrr = startMrr + new + expansion + reactivation - contraction - churned, month after month', () => {
    fc.assert(
      fc.property(
        fc.array(history, { maxLength: 20 }),
        range,
        fc.integer({ min: RANGE_START, max: RANGE_END }),
        (histories, [from, to], asOf) => {
          const series = mrrSeries(from, to, histories, asOf);
          series.forEach((month, i) => {
            expect(month.mrr).toBe(mrrAfter(month.startMrr, month));
            if (i > 0) expect(month.startMrr).toBe(series[i - 1].mrr);
            for (const amount of [month.mrr, month.new, month.expansion, month.contraction, month.churned]) {
              expect(amount).toBeGreaterThanOrEqual(0);
            }
            expect(month.reactivation).toBeGreaterThanOrEqual(0);
            expect(month.activeSubscriptions).toBeLessThanOrEqual(histories.length);
          });
          // The last month's MRR is the sum of every subscription's own MRR at its end.
          const [year, m] = to.split('-').map(Number);
          const end = Math.min(Date.UTC(year, m, 1), asOf + 1);
          const expected = histories.reduce((total, h) => total + stateBefore(h, end).mrr, 0);
          expect(series[series.length - 1].mrr).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a subscription that contributed before is never new again; one that never did is never reactivated', () => {
    fc.assert(
      fc.property(
        history,
        fc.integer({ min: RANGE_START, max: RANGE_END }),
        fc.nat(40 * 86_400_000),
        (h, start, length) => {
          const end = start + length;
          const before = h.some((change) => change.at < start && change.contributing);
          const movement = classifyMovement(stateBefore(h, start), stateBefore(h, end), before);
          if (before) expect(movement?.kind).not.toBe('new');
          else expect(movement?.kind).not.toBe('reactivation');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
