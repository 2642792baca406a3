import {
  classifyMovement,
  contributesToMrr,
  formatMonth,
  noMovements,
  NOT_CONTRIBUTING,
  type MovementTotals,
  type MrrState,
  type SubscriptionMrrFact,
  type SubscriptionStatus,
  type Movement,
} from '@billing/analytics';

/**
 * What the read model keeps of one subscription (docs/api-behaviour.md §25, "How the figures are
 * kept"): its state after its last fact, and what its last month's movement was judged from.
 */
export interface SubscriptionRecord {
  currency: string;
  customerId: string;
  status: SubscriptionStatus;
  contributing: boolean;
  mrr: number;
  /** Epoch milliseconds of the last fact applied (its effective time). */
  lastFactAt: number;
  /** Whether it contributed after any fact applied so far. */
  everContributed: boolean;
  /** `YYYY-MM` of its last change. */
  changeMonth: string;
  /** Its state at changeMonth's first instant. */
  monthStart: MrrState;
  /** Whether it contributed at any time before changeMonth's first instant. */
  contributedBeforeMonth: boolean;
  /** `YYYY-MM-DD` (UTC) of the last time it stopped contributing; null if it never did. */
  lastChurnDay: string | null;
}

/** What one subscription fact changes in the aggregates; every number is a signed delta. */
export interface SubscriptionChange {
  record: SubscriptionRecord;
  /** The fact's effective time (epoch ms): its own, or the last fact's when it came out of order. */
  at: number;
  /** `YYYY-MM` and `YYYY-MM-DD` (UTC) of `at`. */
  month: string;
  day: string;
  /** The change of that month's movement sums (may be negative: a movement replaced). */
  movements: MovementTotals;
  /** Subscriptions contributing: -1, 0 or +1. */
  contributingDelta: number;
  mrrDelta: number;
  trialingDelta: number;
  pastDueDelta: number;
  /**
   * The days whose count of subscriptions last churned that day change: when it stops
   * contributing, -1 on its previous last churn's day and +1 on this one's, so that a window
   * ending now counts each subscription that churned in it once (docs/api-behaviour.md §25).
   */
  lastChurnDays: { day: string; delta: number }[];
  /** 1 when it contributed for the first time with this fact. */
  firstContribution: number;
}

export const monthOf = (at: number): string => {
  const date = new Date(at);
  return formatMonth({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 });
};

export const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);

const movementDelta = (before: Movement, after: Movement): MovementTotals => {
  const totals = noMovements();
  if (before) totals[before.kind] -= before.amount;
  if (after) totals[after.kind] += after.amount;
  return totals;
};

const count = (flag: boolean): number => (flag ? 1 : 0);

/**
 * The incremental rule (docs/api-behaviour.md §25): a subscription fact at `factAt` in month M.
 * When M is the month of the subscription's last change, that month's movement of this
 * subscription becomes classify(monthStart, new state) instead of classify(monthStart, previous
 * state); otherwise its state at M's start is its previous state (nothing changed between), its
 * old movement in M is none, and "contributed before M" is whether it ever contributed. The
 * difference goes to M's sums, so every month holds exactly the movement mrrSeries of
 * @billing/analytics judges from the month's two ends. A fact older than the subscription's last
 * one (out of order) is applied at the last fact's time: the state it brings is the newest
 * known, and the months already judged stay as they were.
 */
export function applySubscriptionFact(
  previous: SubscriptionRecord | null,
  fact: SubscriptionMrrFact,
  factAt: number,
): SubscriptionChange {
  const next: MrrState = { contributing: fact.contributing, mrr: fact.contributing ? fact.mrr : 0 };
  if (next.contributing !== contributesToMrr(fact.status)) {
    throw new RangeError(`a ${fact.status} subscription fact says contributing ${fact.contributing}`);
  }
  const at = previous ? Math.max(factAt, previous.lastFactAt) : factAt;
  const month = monthOf(at);
  const before: MrrState = previous ? { contributing: previous.contributing, mrr: previous.mrr } : NOT_CONTRIBUTING;
  const everContributed = previous?.everContributed ?? false;
  const sameMonth = previous !== null && previous.changeMonth === month;
  const monthStart = sameMonth ? previous.monthStart : before;
  const contributedBeforeMonth = sameMonth ? previous.contributedBeforeMonth : everContributed;
  const oldMovement = sameMonth ? classifyMovement(monthStart, before, contributedBeforeMonth) : null;
  const newMovement = classifyMovement(monthStart, next, contributedBeforeMonth);
  // Each subscription counts once in a window, on the day of its last churn (§25).
  const churned = before.contributing && !next.contributing;
  const day = dayOf(at);
  const previousChurnDay = previous?.lastChurnDay ?? null;
  const lastChurnDays =
    !churned || previousChurnDay === day
      ? []
      : [...(previousChurnDay ? [{ day: previousChurnDay, delta: -1 }] : []), { day, delta: 1 }];
  const record: SubscriptionRecord = {
    currency: previous?.currency ?? fact.currency,
    customerId: previous?.customerId ?? fact.customer_id,
    status: fact.status,
    contributing: next.contributing,
    mrr: next.mrr,
    lastFactAt: at,
    everContributed: everContributed || next.contributing,
    changeMonth: month,
    monthStart,
    contributedBeforeMonth,
    lastChurnDay: churned ? day : previousChurnDay,
  };
  const wasTrialing = previous?.status === 'TRIALING';
  const wasPastDue = previous?.status === 'PAST_DUE';
  return {
    record,
    at,
    month,
    day,
    movements: movementDelta(oldMovement, newMovement),
    contributingDelta: count(next.contributing) - count(before.contributing),
    mrrDelta: next.mrr - before.mrr,
    trialingDelta: count(fact.status === 'TRIALING') - count(wasTrialing),
    pastDueDelta: count(fact.status === 'PAST_DUE') - count(wasPastDue),
    lastChurnDays,
    firstContribution: count(next.contributing && !everContributed),
  };
}
