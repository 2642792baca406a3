import type { ProjectScope } from '@billing/platform';
import type { PlanModel } from '../../db/models/plan.model';
import type { CatalogDeps } from '../../catalog-deps';

/** DELETE keeps the plan (subscriptions on it keep billing) and stops new sales. */
export async function deactivatePlan(deps: CatalogDeps, scope: ProjectScope, planId: string): Promise<PlanModel> {
  const plan = await deps.plans.get(scope, planId);
  const deactivated = plan.isActive ? await deps.plans.deactivate(plan, await deps.clocks.now(scope)) : plan;
  // Announced even when it was inactive already: this may be the retry of a deactivation whose
  // announcement failed (PlanChangePublisher).
  await deps.planChanges.announce(scope, planId);
  return deactivated;
}
