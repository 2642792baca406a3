import type { Plan } from './gen/catalog/v1/catalog';
import type { PlanSnapshot } from './gen/billing/v1/billing';

/**
 * The plan billing takes for a subscription or a plan change, from catalog's plan: billing never
 * calls catalog, so the caller (the gateway, the portal) reads the plan and passes this.
 * Its default tax rates travel with it: a subscription without rates of its own keeps these
 * (docs/api-behaviour.md §21).
 */
export const planSnapshotOf = (plan: Plan): PlanSnapshot => ({
  planId: plan.id,
  name: plan.name,
  amount: plan.amount,
  currency: plan.currency,
  interval: plan.interval,
  intervalCount: plan.intervalCount,
  trialPeriodDays: plan.trialPeriodDays,
  usageUnitAmount: plan.usageUnitAmount,
  taxRateIds: plan.taxRateIds,
});
