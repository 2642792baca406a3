import { addBillingPeriods, nextPeriodBoundary, type BillingPeriod, type Interval } from './periods';
import type { SubscriptionEvent, SubscriptionStatus } from './subscription-status';

const DAY_MS = 24 * 60 * 60 * 1000;
/** subscription.trial_will_end goes out this long before the trial ends (docs/api-behaviour.md §12). */
export const TRIAL_WILL_END_MS = 3 * DAY_MS;

/** What the scheduler needs to know of a subscription to choose its next step. */
export interface SchedulableSubscription {
  status: SubscriptionStatus;
  createdAt: Date;
  trialEnd: Date | null;
  trialWillEndNotifiedAt: Date | null;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  billingCycles: number | null;
  billingAnchor: Date;
  interval: Interval;
  intervalCount: number;
  /** A plan change asked for at the period's end (docs/api-behaviour.md §18): when, and its calendar. */
  pendingPlanChangeAt?: Date | null;
  pendingInterval?: Interval | null;
  pendingIntervalCount?: number | null;
}

/** The pending plan change a renewal applies first; `newAnchor` set when its interval differs. */
export interface PendingPlanStep {
  newAnchor: Date | null;
}

/** The one step the scheduler takes next, at its business time `at`. */
export type BillingStep =
  | { kind: 'none' }
  | { kind: 'notify_trial_will_end'; at: Date }
  | { kind: 'cancel_at_period_end'; at: Date }
  | { kind: 'expire_fixed_term'; at: Date }
  | { kind: 'renew'; at: Date; period: BillingPeriod; pendingPlan: PendingPlanStep | null };

/**
 * The earliest due step of a subscription at the project's time `now` (docs/api-behaviour.md §8): first the
 * trial's notice three days before it ends, then, once the period has ended, a requested cancel,
 * the end of a fixed term (`billedPeriods` periods billed of `billing_cycles`), or the next
 * period's invoice. Paused and past-due subscriptions do not renew (their own steps handle them).
 * A plan change pending by then is applied by the renewal, which bills the new plan (§18): with
 * another interval its new period runs from the period end, the new billing anchor.
 */
export function dueBillingStep(subscription: SchedulableSubscription, now: Date, billedPeriods: number): BillingStep {
  const { trialEnd, currentPeriodEnd: periodEnd } = subscription;
  if (
    subscription.status === 'TRIALING' &&
    trialEnd &&
    !subscription.trialWillEndNotifiedAt &&
    trialEnd.getTime() - TRIAL_WILL_END_MS <= now.getTime()
  ) {
    const at = new Date(Math.max(trialEnd.getTime() - TRIAL_WILL_END_MS, subscription.createdAt.getTime()));
    return { kind: 'notify_trial_will_end', at };
  }
  if (periodEnd.getTime() > now.getTime()) return { kind: 'none' };
  if (subscription.cancelAtPeriodEnd) return { kind: 'cancel_at_period_end', at: periodEnd };
  if (subscription.status !== 'ACTIVE' && subscription.status !== 'TRIALING') return { kind: 'none' };
  if (
    subscription.status === 'ACTIVE' &&
    subscription.billingCycles !== null &&
    billedPeriods >= subscription.billingCycles
  ) {
    return { kind: 'expire_fixed_term', at: periodEnd };
  }
  const { billingAnchor, interval, intervalCount, pendingPlanChangeAt, pendingInterval, pendingIntervalCount } =
    subscription;
  if (pendingPlanChangeAt && pendingInterval && pendingIntervalCount && pendingPlanChangeAt <= periodEnd) {
    const moves = pendingInterval !== interval || pendingIntervalCount !== intervalCount;
    const end = moves
      ? addBillingPeriods(periodEnd, pendingInterval, pendingIntervalCount, 1)
      : nextPeriodBoundary(billingAnchor, interval, intervalCount, periodEnd);
    return {
      kind: 'renew',
      at: periodEnd,
      period: { start: periodEnd, end },
      pendingPlan: { newAnchor: moves ? periodEnd : null },
    };
  }
  return {
    kind: 'renew',
    at: periodEnd,
    period: { start: periodEnd, end: nextPeriodBoundary(billingAnchor, interval, intervalCount, periodEnd) },
    pendingPlan: null,
  };
}

/**
 * What a paid invoice does to its subscription: the state-table event to apply (if any) and
 * whether a paid period began (subscription.renewed). Paused and final subscriptions are left
 * to their callers.
 */
export function afterInvoicePaid(status: SubscriptionStatus): { event?: SubscriptionEvent; renewed: boolean } {
  if (status === 'TRIALING') return { event: 'trial_ended_paid', renewed: true };
  if (status === 'PAST_DUE') return { event: 'retry_succeeded', renewed: true };
  return { renewed: status === 'ACTIVE' };
}
