import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import { validateNewPlan, type PlanDraft } from '../../domain/plan-rules';
import type { PlanModel } from '../../db/models/plan.model';
import type { CatalogDeps } from '../../catalog-deps';
import { attachableTaxRateIds } from '../../tax-rates/attachable-tax-rates';

/**
 * A new active plan. Its default tax rates (docs/api-behaviour.md §21) are billing's to check
 * (attachableTaxRateIds), after the plan's own fields.
 */
export async function createPlan(
  deps: CatalogDeps,
  scope: ProjectScope,
  draft: PlanDraft & { taxRateIds: string[] },
): Promise<PlanModel> {
  const plan = validateNewPlan(draft);
  const taxRateIds = await attachableTaxRateIds(deps, scope, draft.taxRateIds);
  const now = await deps.clocks.now(scope);
  return deps.plans.create({
    id: randomUUID(),
    projectId: scope.projectId,
    livemode: scope.livemode,
    name: plan.name,
    description: plan.description,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    intervalCount: plan.intervalCount,
    trialPeriodDays: plan.trialPeriodDays,
    usageUnitAmount: plan.usageUnitAmount ?? null,
    isActive: true,
    metadata: plan.metadata ?? {},
    taxRateIds,
    createdAt: now,
    updatedAt: now,
  });
}
