import type { ProjectScope } from '@billing/platform';
import { canonicalQuantity, usageAmount } from '../domain/usage-quantity';
import type { BillingDeps } from './billing-deps';
import { findSubscriptionInScope } from './usage-rules';

export interface UsageSummary {
  periodStart: Date;
  periodEnd: Date;
  /** Exact decimal text, summed in PostgreSQL. */
  unbilledQuantity: string;
  /** Minor units per unit; null when the plan is not metered. */
  unitAmount: number | null;
  /** Minor units: what the next renewal would bill for this usage (rounded once). */
  estimatedAmount: number;
  currency: string;
}

/**
 * The current period and what of its usage is still unbilled: the records the next renewal
 * bills (every unbilled record before the current period's end, as billUsageForPeriod does).
 */
export async function getUsageSummary(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
): Promise<UsageSummary> {
  const subscription = await findSubscriptionInScope(scope, subscriptionId);
  const unbilledQuantity = canonicalQuantity(
    await deps.usage.sumUnbilled(subscription.id, subscription.currentPeriodEnd),
  );
  const unitAmount = subscription.usageUnitAmount ?? null;
  return {
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    unbilledQuantity,
    unitAmount,
    estimatedAmount: unitAmount === null ? 0 : Math.max(0, usageAmount(unbilledQuantity, unitAmount)),
    currency: subscription.currency,
  };
}
