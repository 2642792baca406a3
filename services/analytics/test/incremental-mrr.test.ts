import fc from 'fast-check';
import {
  classifyMovement,
  contributesToMrr,
  mrrAfter,
  mrrSeries,
  monthsOfRange,
  stateBefore,
  subscriberChurnRate30d,
  summariseMrr,
  SUBSCRIPTION_STATUSES,
  type MrrChange,
  type SubscriptionMrrFact,
  type SubscriptionStatus,
} from '@billing/analytics';
import {
  mrrMonthsOfRange,
  summaryOf,
  thirtyDayWindow,
  type CurrencyTotals,
  type DailyRow,
  type MrrMonthRow,
} from '../src/domain/analytics-figures';
import { foldFacts, subscriptionKey, type ReadModelChanges, type ScopedFact } from '../src/domain/read-model-changes';
import { applySubscriptionFact, monthOf, type SubscriptionRecord } from '../src/domain/subscription-movement';

// docs/api-behaviour.md §25: the read model's incremental rule gives, month by month, exactly what
// mrrSeries of @billing/analytics computes from the subscriptions' whole histories.

const PROJECT = '00000000-0000-4000-8000-000000000001';
const scope = { projectId: PROJECT, livemode: false };

const fact = (
  subscription: string,
  status: SubscriptionStatus,
  mrr: number,
  customer = `cus_${subscription}`,
): SubscriptionMrrFact => {
  const contributing = contributesToMrr(status);
  return {
    kind: 'subscription_mrr',
    subscription_id: subscription,
    customer_id: customer,
    currency: 'NGN',
    status,
    contributing,
    mrr: contributing ? mrr : 0,
  };
};

/** The read model in memory: the repository's writes (records replaced, ledgers summed). */
class MemoryReadModel {
  subscriptions = new Map<string, SubscriptionRecord>();
  months = new Map<string, MrrMonthRow>();
  days = new Map<string, DailyRow>();
  totals: CurrencyTotals = { mrr: 0, active: 0, trialing: 0, pastDue: 0, customers: 0 };
  customerCounts = new Map<string, number>();

  apply(facts: ScopedFact[]): void {
    this.write(foldFacts(facts, this.subscriptions));
  }

  private write(changes: ReadModelChanges): void {
    for (const [key, { record }] of changes.subscriptions) this.subscriptions.set(key, record);
    for (const row of changes.mrrMonths.values()) {
      const stored = this.months.get(row.month) ?? {
        month: row.month,
        new: 0,
        expansion: 0,
        contraction: 0,
        churned: 0,
        reactivation: 0,
        activeDelta: 0,
      };
      for (const k of ['new', 'expansion', 'contraction', 'churned', 'reactivation', 'activeDelta'] as const) {
        stored[k] += row[k];
      }
      this.months.set(row.month, stored);
    }
    for (const row of changes.days.values()) {
      const stored = this.days.get(row.day) ?? {
        day: row.day,
        lastChurns: 0,
        firstContributions: 0,
        contributingDelta: 0,
        gross: 0,
        refunds: 0,
      };
      stored.lastChurns += row.lastChurns;
      stored.firstContributions += row.firstContributions;
      stored.contributingDelta += row.contributingDelta;
      stored.gross += row.gross;
      stored.refunds += row.refunds;
      this.days.set(row.day, stored);
    }
    for (const { customerId, delta } of changes.customers.values()) {
      const before = this.customerCounts.get(customerId) ?? 0;
      this.customerCounts.set(customerId, before + delta);
      this.totals.customers += (before + delta > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    }
    for (const t of changes.totals.values()) {
      this.totals.mrr += t.mrr;
      this.totals.active += t.active;
      this.totals.trialing += t.trialing;
      this.totals.pastDue += t.pastDue;
    }
  }
}

const scoped = (eventId: string, at: number, f: SubscriptionMrrFact): ScopedFact => ({
  ...scope,
  eventId,
  at,
  fact: f,
});

describe('the incremental rule of one subscription (applySubscriptionFact)', () => {
  const jan10 = Date.UTC(2026, 0, 10);
  const jan20 = Date.UTC(2026, 0, 20);
  const feb5 = Date.UTC(2026, 1, 5);

  it('a first contribution is new in its month and the subscription is remembered as having contributed', () => {
    const change = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), jan10);
    expect(change.month).toBe('2026-01');
    expect(change.movements).toEqual({ new: 1000, expansion: 0, contraction: 0, churned: 0, reactivation: 0 });
    expect(change).toMatchObject({ contributingDelta: 1, mrrDelta: 1000, firstContribution: 1, lastChurnDays: [] });
    expect(change.record).toMatchObject({
      everContributed: true,
      changeMonth: '2026-01',
      monthStart: { contributing: false, mrr: 0 },
      contributedBeforeMonth: false,
    });
  });

  it('a second change in the same month replaces the month movement (new 1000 becomes new 1500)', () => {
    const first = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), jan10).record;
    const second = applySubscriptionFact(first, fact('a', 'ACTIVE', 1500), jan20);
    expect(second.movements).toEqual({ new: 500, expansion: 0, contraction: 0, churned: 0, reactivation: 0 });
  });

  it('starting and stopping inside one month moves nothing in that month (the new is taken back)', () => {
    const first = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), jan10).record;
    const cancelled = applySubscriptionFact(first, fact('a', 'CANCELLED', 0), jan20);
    expect(cancelled.movements).toEqual({ new: -1000, expansion: 0, contraction: 0, churned: 0, reactivation: 0 });
    expect(cancelled).toMatchObject({
      lastChurnDays: [{ day: '2026-01-20', delta: 1 }],
      contributingDelta: -1,
      mrrDelta: -1000,
    });
    // It did contribute, so contributing again in a later month is a reactivation.
    const again = applySubscriptionFact(cancelled.record, fact('a', 'ACTIVE', 1000), feb5);
    expect(again.movements.reactivation).toBe(1000);
    expect(again.firstContribution).toBe(0);
  });

  it('a subscription that churns again moves its one count to the later day (counted once in a window)', () => {
    const first = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), jan10).record;
    const paused = applySubscriptionFact(first, fact('a', 'PAUSED', 0), jan20).record;
    expect(paused.lastChurnDay).toBe('2026-01-20');
    const resumed = applySubscriptionFact(paused, fact('a', 'ACTIVE', 1000), feb5).record;
    expect(resumed.lastChurnDay).toBe('2026-01-20');
    const pausedAgain = applySubscriptionFact(resumed, fact('a', 'PAUSED', 0), Date.UTC(2026, 1, 7));
    expect(pausedAgain.lastChurnDays).toEqual([
      { day: '2026-01-20', delta: -1 },
      { day: '2026-02-07', delta: 1 },
    ]);
    // Twice on one day: the count stays on that day.
    const resumedSameDay = applySubscriptionFact(
      pausedAgain.record,
      fact('a', 'ACTIVE', 1000),
      Date.UTC(2026, 1, 7, 1),
    );
    const pausedSameDay = applySubscriptionFact(resumedSameDay.record, fact('a', 'PAUSED', 0), Date.UTC(2026, 1, 7, 2));
    expect(pausedSameDay.lastChurnDays).toEqual([]);
    expect(pausedSameDay.record.lastChurnDay).toBe('2026-02-07');
  });

  it('a change in a later month starts from the previous state (an expansion)', () => {
    const first = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), jan10).record;
    const change = applySubscriptionFact(first, fact('a', 'PAST_DUE', 1200), feb5);
    expect(change.movements).toEqual({ new: 0, expansion: 200, contraction: 0, churned: 0, reactivation: 0 });
    expect(change).toMatchObject({ pastDueDelta: 1, trialingDelta: 0, contributingDelta: 0 });
    expect(change.record.monthStart).toEqual({ contributing: true, mrr: 1000 });
  });

  it('a trial is counted trialing and contributes nothing; its conversion is new', () => {
    const trial = applySubscriptionFact(null, fact('a', 'TRIALING', 0), jan10);
    expect(trial).toMatchObject({ trialingDelta: 1, contributingDelta: 0, firstContribution: 0 });
    expect(trial.movements).toEqual({ new: 0, expansion: 0, contraction: 0, churned: 0, reactivation: 0 });
    const converted = applySubscriptionFact(trial.record, fact('a', 'ACTIVE', 900), feb5);
    expect(converted).toMatchObject({ trialingDelta: -1, contributingDelta: 1, firstContribution: 1 });
    expect(converted.movements.new).toBe(900);
  });

  it('a fact older than the last one is applied at the last fact time', () => {
    const later = applySubscriptionFact(null, fact('a', 'ACTIVE', 1000), feb5).record;
    const late = applySubscriptionFact(later, fact('a', 'CANCELLED', 0), jan10);
    expect(late.at).toBe(feb5);
    expect(late.month).toBe('2026-02');
    expect(late.movements.new).toBe(-1000);
  });

  it('refuses a fact whose contributing flag contradicts its status', () => {
    expect(() => applySubscriptionFact(null, { ...fact('a', 'ACTIVE', 100), status: 'CANCELLED' }, jan10)).toThrow(
      RangeError,
    );
  });

  it('every pair of states in one month classifies exactly as classifyMovement from the month start', () => {
    const states = [
      { status: 'TRIALING', mrr: 0 },
      { status: 'ACTIVE', mrr: 100 },
      { status: 'ACTIVE', mrr: 300 },
      { status: 'PAST_DUE', mrr: 100 },
      { status: 'CANCELLED', mrr: 0 },
    ] as const;
    for (const everBefore of [false, true]) {
      for (const start of states) {
        for (const middle of states) {
          for (const end of states) {
            // An earlier month sets the month-start state (and whether it contributed before).
            let record: SubscriptionRecord | null = null;
            if (everBefore) record = applySubscriptionFact(null, fact('a', 'ACTIVE', 50), Date.UTC(2025, 5, 1)).record;
            record = applySubscriptionFact(record, fact('a', start.status, start.mrr), Date.UTC(2025, 11, 31)).record;
            const one = applySubscriptionFact(record, fact('a', middle.status, middle.mrr), jan10);
            const two = applySubscriptionFact(one.record, fact('a', end.status, end.mrr), jan20);
            const sum = { ...one.movements };
            for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += two.movements[k];
            const startState = { contributing: contributesToMrr(start.status), mrr: start.mrr };
            const endState = { contributing: contributesToMrr(end.status), mrr: end.mrr };
            const expected = classifyMovement(startState, endState, everBefore || startState.contributing);
            const expectedTotals = { new: 0, expansion: 0, contraction: 0, churned: 0, reactivation: 0 };
            if (expected) expectedTotals[expected.kind] = expected.amount;
            expect(sum).toEqual(expectedTotals);
          }
        }
      }
    }
  });
});

const RANGE_FROM = '2025-01';
const RANGE_TO = '2026-12';
const FIRST = Date.UTC(2025, 0, 1);
const LAST = Date.UTC(2026, 11, 31, 23, 59);
/** Some instants exactly at a month's first millisecond, where a change opens the month. */
const instant = fc.oneof(
  fc.integer({ min: FIRST, max: LAST }),
  fc.integer({ min: 0, max: 23 }).map((i) => Date.UTC(2025, i, 1)),
);
const subscriptionFact = fc.record({
  subscription: fc.integer({ min: 0, max: 5 }).map((i) => `sub_${i}`),
  customer: fc.integer({ min: 0, max: 2 }).map((i) => `cus_${i}`),
  status: fc.constantFrom(...SUBSCRIPTION_STATUSES),
  mrr: fc.constantFrom(100, 250, 1000, 99_999),
  at: instant,
});

describe('incremental = batch (fast-check, docs/api-behaviour.md §25)', () => {
  it('any sequence of facts, applied in any batches, gives mrrSeries for every month, and the summary', () => {
    fc.assert(
      fc.property(
        fc.array(subscriptionFact, { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 60 * 86_400_000 }),
        (generated, batchSizes, afterLast) => {
          // A subscription keeps its first customer (billing never moves one).
          const customerOf = new Map<string, string>();
          const facts = generated.map((g, i) => {
            if (!customerOf.has(g.subscription)) customerOf.set(g.subscription, g.customer);
            return scoped(`evt_${i}`, g.at, fact(g.subscription, g.status, g.mrr, customerOf.get(g.subscription)));
          });
          const model = new MemoryReadModel();
          for (let i = 0, b = 0; i < facts.length; b += 1) {
            const size = batchSizes[b % batchSizes.length];
            model.apply(facts.slice(i, i + size));
            i += size;
          }
          // The histories the batch rule sees: each fact at its effective time (an out-of-order
          // one at its subscription's last fact time), in arrival order.
          const histories = new Map<string, MrrChange[]>();
          const lastAt = new Map<string, number>();
          for (const { at, fact: f } of facts) {
            if (f.kind !== 'subscription_mrr') continue;
            const effective = Math.max(at, lastAt.get(f.subscription_id) ?? at);
            lastAt.set(f.subscription_id, effective);
            const list = histories.get(f.subscription_id) ?? [];
            list.push({ at: effective, contributing: f.contributing, mrr: f.mrr });
            histories.set(f.subscription_id, list);
          }
          const asOf = Math.max(LAST, ...lastAt.values()) + afterLast;
          const expected = mrrSeries(RANGE_FROM, RANGE_TO, [...histories.values()], asOf);
          const actual = mrrMonthsOfRange(monthsOfRange(RANGE_FROM, RANGE_TO), [...model.months.values()], asOf);
          expect(actual).toEqual(expected.map(({ startMrr: _startMrr, ...month }) => ({ ...month })));
          for (const [i, month] of actual.entries()) {
            const start = i === 0 ? expected[0].startMrr : actual[i - 1].mrr;
            expect(month.mrr).toBe(mrrAfter(start, month));
          }

          // The summary at asOf against a count over the whole histories.
          const latest = new Map<string, SubscriptionMrrFact>();
          for (const { fact: f } of facts) if (f.kind === 'subscription_mrr') latest.set(f.subscription_id, f);
          const current = [...latest.values()];
          const { firstDay } = thirtyDayWindow(asOf);
          const windowStart = Date.parse(`${firstDay}T00:00:00Z`);
          // Subscriptions that churned in the window, each once however often it did.
          const churnedSubscriptions = new Set<string>();
          let fresh = 0;
          for (const [subscriptionId, history] of histories.entries()) {
            history.forEach((change, i) => {
              const before = i === 0 ? false : history[i - 1].contributing;
              if (change.at < windowStart || change.at > asOf) return;
              if (before && !change.contributing) churnedSubscriptions.add(subscriptionId);
              if (change.contributing && !history.slice(0, i).some((c) => c.contributing)) fresh += 1;
            });
          }
          const contributingAtStart = [...histories.values()].filter(
            (h) => stateBefore(h, windowStart).contributing,
          ).length;
          const mrr = current.reduce((sum, f) => sum + f.mrr, 0);
          const customers = new Set(current.filter((f) => f.contributing).map((f) => f.customer_id)).size;
          const summary = summaryOf(model.totals, [...model.days.values()], asOf);
          expect(summary).toEqual({
            ...summariseMrr(mrr, customers),
            activeSubscriptions: current.filter((f) => f.contributing).length,
            trialingSubscriptions: current.filter((f) => f.status === 'TRIALING').length,
            pastDueSubscriptions: current.filter((f) => f.status === 'PAST_DUE').length,
            customers,
            subscriberChurnRate30d: String(
              subscriberChurnRate30d({ churned: churnedSubscriptions.size, contributingAtStart, new: fresh }),
            ),
            netRevenue30d: 0,
          });
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("keeps a subscription's latest state, and a month runs from its first millisecond to the next's", () => {
    const model = new MemoryReadModel();
    const once = [scoped('evt_1', Date.UTC(2026, 0, 5), fact('a', 'ACTIVE', 1000))];
    model.apply(once);
    expect(model.totals.mrr).toBe(1000);
    expect(model.subscriptions.get(subscriptionKey(scope, 'a'))?.mrr).toBe(1000);
    expect(monthOf(Date.UTC(2026, 0, 31, 23, 59, 59, 999))).toBe('2026-01');
    expect(monthOf(Date.UTC(2026, 1, 1))).toBe('2026-02');
  });
});

describe('revenue facts', () => {
  it('gross, tax and refunds go to the month and the day of their event', () => {
    const at = Date.UTC(2026, 2, 31, 23, 0);
    const changes = foldFacts(
      [
        {
          ...scope,
          eventId: 'e1',
          at,
          fact: {
            kind: 'invoice_payment',
            invoice_id: 'in_1',
            customer_id: 'c',
            currency: 'NGN',
            charged: 10_750,
            tax: 750,
          },
        },
        {
          ...scope,
          eventId: 'e2',
          at: at + 3_600_000,
          fact: { kind: 'refund', refund_id: 'rf_1', currency: 'NGN', amount: 500 },
        },
      ],
      new Map(),
    );
    expect(
      [...changes.revenueMonths.values()].map(({ month, gross, refunds, tax }) => ({ month, gross, refunds, tax })),
    ).toEqual([
      { month: '2026-03', gross: 10_750, refunds: 0, tax: 750 },
      { month: '2026-04', gross: 0, refunds: 500, tax: 0 },
    ]);
    expect([...changes.days.values()].map(({ day, gross, refunds }) => ({ day, gross, refunds }))).toEqual([
      { day: '2026-03-31', gross: 10_750, refunds: 0 },
      { day: '2026-04-01', gross: 0, refunds: 500 },
    ]);
  });
});
