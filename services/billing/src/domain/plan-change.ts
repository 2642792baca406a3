import { DomainError } from '@billing/platform';
import type { BillingPeriod, Interval } from './periods';
import { prorationLines, secondOf, type PlanChangeLine } from './proration';
import type { SubscriptionStatus } from './subscription-status';

/**
 * The rules of a plan change (docs/api-behaviour.md §18), pure: what a change-plan request does
 * to a subscription at `now`. The change and its preview both start here, so a preview shows
 * exactly what the change then does.
 */

/** A plan's billing terms, as billing keeps them on a subscription. */
export interface PlanTerms {
  planId: string;
  name: string;
  amount: number;
  interval: Interval;
  intervalCount: number;
  usageUnitAmount: number | null;
  /** The plan's default tax rates, kept by a subscription on it (docs/api-behaviour.md §21). */
  taxRateIds: string[];
}

/** What prices a plan's usage: its terms without its tax rates (the invoice's rates tax it). */
export type PricingTerms = Omit<PlanTerms, 'taxRateIds'>;

export type ProrationBehavior = 'IMMEDIATE' | 'NONE';

export interface PlanChangeRequest {
  /** The new plan as catalog has it now (the gateway refused an inactive one). */
  plan: PlanTerms & { currency: string };
  proration: ProrationBehavior;
  atPeriodEnd: boolean;
}

/** What a plan change needs to know of the subscription. */
export interface ChangingSubscription {
  status: SubscriptionStatus;
  currency: string;
  plan: PlanTerms;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  /**
   * P of the current period before its exclusive tax (heldBeforeTaxForPeriod, period-payment.ts):
   * what its unused time credits back; the change's invoice adds back the tax of that credit (§21).
   */
  paidForPeriod: number;
}

export type PlanChange =
  /** `at_period_end`: nothing now; the renewal at `at` (= current_period_end) bills `plan`. */
  | { kind: 'schedule'; plan: PlanTerms; at: Date }
  /** `at_period_end` with the current plan: a pending change (if any) is dropped. */
  | { kind: 'clear_pending' }
  /**
   * The plan changes at `at` (the start of the current second of the period) without an invoice:
   * during a trial (its end kept), or NONE on the same interval.
   */
  | { kind: 'swap'; plan: PlanTerms; at: Date }
  /**
   * The plan changes at `at` once `lines` are paid: the proration (same interval, IMMEDIATE), or a
   * new period from `at` (another interval). `period` is the invoice's; `newPeriod` the
   * subscription's next current period when the interval changes (its billing anchor moves to
   * `at`), else null.
   */
  | {
      kind: 'invoice';
      plan: PlanTerms;
      at: Date;
      lines: PlanChangeLine[];
      period: BillingPeriod;
      newPeriod: BillingPeriod | null;
    };

/** The change an invoice pays for, stored on it (invoices.plan_change) until it is paid. */
export interface StoredPlanChange {
  plan: PlanTerms;
  previousPlanId: string;
  /** ISO time of the change. */
  at: string;
  /** The new current period when the interval changes (ISO), else null. */
  newPeriod: { start: string; end: string } | null;
}

const refuse = (detail: string) => new DomainError('failed_precondition', detail);

/**
 * What changing `subscription` to `request.plan` at `now` does. 400 (failed_precondition) for a
 * subscription neither ACTIVE nor TRIALING, another currency, or (changing now) the plan it is
 * already on; 503 (unavailable) while the current period has ended and its renewal is still to
 * be made: the change waits for the renewal rather than prorate a period that is over.
 */
export function decidePlanChange(
  subscription: ChangingSubscription,
  request: PlanChangeRequest,
  now: Date,
): PlanChange {
  const { status, currency, plan: current } = subscription;
  if (status !== 'ACTIVE' && status !== 'TRIALING') {
    throw refuse(
      `A ${status.toLowerCase().replace('_', ' ')} subscription cannot change plan; only active and trialing ones can`,
    );
  }
  const { currency: planCurrency, ...plan } = request.plan;
  if (planCurrency !== currency) {
    throw refuse(
      `The plan is billed in ${planCurrency} and the subscription in ${currency}; choose a plan in ${currency}`,
    );
  }
  const samePlan = plan.planId === current.planId;
  if (request.atPeriodEnd) {
    return samePlan ? { kind: 'clear_pending' } : { kind: 'schedule', plan, at: subscription.currentPeriodEnd };
  }
  if (samePlan) throw refuse('The subscription is already on this plan');
  if (now.getTime() >= subscription.currentPeriodEnd.getTime()) {
    throw new DomainError(
      'unavailable',
      "The subscription's period has ended and its renewal is being made; please retry",
    );
  }
  const period = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  // Proration counts whole seconds (§16.24): the change takes effect at the start of its second.
  const at = secondOf(period, now);
  if (status === 'TRIALING') return { kind: 'swap', plan, at };

  const proration = prorationLines({
    oldPlan: current,
    newPlan: plan,
    period,
    at,
    proration: request.proration,
    paidForPeriod: subscription.paidForPeriod,
  });
  if (!proration.newPeriod && proration.lines.length === 0) return { kind: 'swap', plan, at };
  return {
    kind: 'invoice',
    plan,
    at,
    lines: proration.lines,
    period: proration.newPeriod ?? { start: at, end: period.end },
    newPeriod: proration.newPeriod,
  };
}

/** The plan a subscription carries, as PlanTerms. */
export const planTermsOf = (s: {
  planId: string;
  planName: string;
  amount: number;
  interval: Interval;
  intervalCount: number;
  usageUnitAmount: number | null;
  planTaxRateIds: string[];
}): PlanTerms => ({
  planId: s.planId,
  name: s.planName,
  amount: s.amount,
  interval: s.interval,
  intervalCount: s.intervalCount,
  usageUnitAmount: s.usageUnitAmount ?? null,
  taxRateIds: s.planTaxRateIds,
});

/** The pending plan of a subscription, or null when it has none. */
export function pendingPlanOf(s: {
  pendingPlanId: string | null;
  pendingPlanName: string | null;
  pendingAmount: number | null;
  pendingInterval: Interval | null;
  pendingIntervalCount: number | null;
  pendingUsageUnitAmount: number | null;
  pendingPlanTaxRateIds: string[] | null;
}): PlanTerms | null {
  if (!s.pendingPlanId) return null;
  return {
    planId: s.pendingPlanId,
    name: s.pendingPlanName!,
    amount: s.pendingAmount!,
    interval: s.pendingInterval!,
    intervalCount: s.pendingIntervalCount!,
    usageUnitAmount: s.pendingUsageUnitAmount ?? null,
    taxRateIds: s.pendingPlanTaxRateIds ?? [],
  };
}
