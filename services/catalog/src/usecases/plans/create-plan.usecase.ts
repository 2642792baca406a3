import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import { validateNewPlan, type PlanDraft } from '../../domain/plan-rules';
import type { PlanModel } from '../../db/models/plan.model';
import type { CatalogDeps } from '../../catalog-deps';

export async function createPlan(deps: CatalogDeps, scope: ProjectScope, draft: PlanDraft): Promise<PlanModel> {
  const plan = validateNewPlan(draft);
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
    createdAt: now,
    updatedAt: now,
  });
}
