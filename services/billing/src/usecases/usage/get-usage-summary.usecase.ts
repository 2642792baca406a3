import { AmountOutOfRangeError, DomainError, type ProjectScope } from '@billing/platform';
import { canonicalQuantity } from '../../domain/usage-quantity';
import { usageUpTo } from '../../invoicing/usage-billing';
import type { BillingDeps } from '../../billing-deps';

export interface UsageSummary {
  periodStart: Date;
  periodEnd: Date;
  /** Exact decimal text, summed in PostgreSQL. */
  unbilledQuantity: string;
  /** Minor units per unit; null when the plan is not metered. */
  unitAmount: number | null;
  /**
   * Minor units: what the next renewal would bill for this usage, each plan's part at its unit
   * amount (docs/api-behaviour.md §18), each rounded once.
   */
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
  const subscription = await deps.subscriptions.get(scope, subscriptionId);
  const unbilledQuantity = canonicalQuantity(
    await deps.usage.sumUnbilled(subscription.id, subscription.currentPeriodEnd),
  );
  const unitAmount = subscription.usageUnitAmount ?? null;
  const period = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  const lines = await usageUpTo(deps, subscription, period, {}).catch((err: unknown) => {
    if (!(err instanceof AmountOutOfRangeError)) throw err;
    throw new DomainError(
      'failed_precondition',
      "The period's usage comes to more than one invoice can bill; record a correction (a negative quantity)",
    );
  });
  return {
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    unbilledQuantity,
    unitAmount,
    estimatedAmount: lines.reduce((sum, line) => sum + line.amount, 0),
    currency: subscription.currency,
  };
}
