import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { BillingPeriod } from '../domain/periods';
import { planTermsOf, type PlanTerms } from '../domain/plan-change';
import type { BillingDeps } from '../billing-deps';
import { subscriptionEvents } from '../events/subscription.events';
import { viewOf } from '../read-models/subscription.read-model';

/** The subscription columns that hold its plan. */
const planColumns = (plan: PlanTerms) => ({
  planId: plan.planId,
  planName: plan.name,
  amount: plan.amount,
  interval: plan.interval,
  intervalCount: plan.intervalCount,
  usageUnitAmount: plan.usageUnitAmount,
  // A change stored on an invoice before migration 0040 names no rates: its plan then had none.
  planTaxRateIds: plan.taxRateIds ?? [],
});

/** The subscription columns of a change pending at the period's end (docs/api-behaviour.md §18). */
export const pendingColumns = (plan: PlanTerms | null, at: Date | null) => ({
  pendingPlanId: plan?.planId ?? null,
  pendingPlanName: plan?.name ?? null,
  pendingAmount: plan?.amount ?? null,
  pendingInterval: plan?.interval ?? null,
  pendingIntervalCount: plan?.intervalCount ?? null,
  pendingUsageUnitAmount: plan?.usageUnitAmount ?? null,
  pendingPlanTaxRateIds: plan?.taxRateIds ?? null,
  pendingPlanChangeAt: plan ? at : null,
});

/**
 * Puts a (locked) subscription on `plan` from `at` (docs/api-behaviour.md §18): the plan history
 * that prices its usage, the plan columns, no pending change left, and (another interval) the
 * new period with its billing anchor; then subscription.updated with the plan it was on, in the
 * caller's transaction. Every way a plan changes comes here: a change now, the payment of a
 * proration invoice, a renewal applying a pending change.
 */
export async function switchPlan(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  plan: PlanTerms,
  at: Date,
  transaction: Transaction,
  change: { newPeriod?: BillingPeriod | null; newAnchor?: Date | null } = {},
): Promise<void> {
  const previous = planTermsOf(subscription);
  await deps.subscriptionPlans.recordChange(subscription, previous, plan, at, transaction);
  const { newPeriod, newAnchor } = change;
  await deps.subscriptions.save(
    subscription,
    {
      ...planColumns(plan),
      ...pendingColumns(null, null),
      planChangedAt: at,
      ...(newAnchor ? { billingAnchor: newAnchor } : {}),
      ...(newPeriod
        ? { billingAnchor: newPeriod.start, currentPeriodStart: newPeriod.start, currentPeriodEnd: newPeriod.end }
        : {}),
      updatedAt: at,
    },
    transaction,
  );
  await recordSubscriptionUpdated(deps, subscription, previous.planId, at, transaction);
}

/** subscription.updated (docs/api-behaviour.md §18, §12) in the transaction of the update. */
export async function recordSubscriptionUpdated(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  previousPlanId: string,
  at: Date,
  transaction: Transaction,
): Promise<void> {
  await recordEvent(
    deps.sequelize,
    transaction,
    subscriptionEvents.updated(await viewOf(deps, subscription, transaction), at, previousPlanId),
  );
}
