import { requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import type { PlanModel } from '../db/models/plan.model';
import type { CatalogDeps } from '../usecases/catalog-deps';
import { createPlan } from '../usecases/create-plan.usecase';
import { deactivatePlan, updatePlan } from '../usecases/update-plan.usecase';

const toPlan = (p: PlanModel): catalogV1.Plan => ({
  id: p.id,
  projectId: p.projectId,
  livemode: p.livemode,
  name: p.name,
  description: p.description,
  amount: p.amount,
  currency: p.currency,
  interval: p.interval,
  intervalCount: p.intervalCount,
  trialPeriodDays: p.trialPeriodDays,
  usageUnitAmount: p.usageUnitAmount ?? undefined,
  isActive: p.isActive,
  metadata: p.metadata,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** Thin: proto request -> use case -> proto response. */
export function catalogHandlers(deps: CatalogDeps, logger: Logger): catalogV1.CatalogServiceServer {
  const handlers: UnaryHandlers<catalogV1.CatalogServiceServer> = {
    async createPlan(req) {
      const plan = await createPlan(deps, requireScope(req.scope), {
        name: req.name,
        description: req.description,
        amount: req.amount,
        currency: req.currency,
        interval: req.interval,
        intervalCount: req.intervalCount,
        trialPeriodDays: req.trialPeriodDays,
        usageUnitAmount: req.usageUnitAmount,
        metadata: req.metadata,
      });
      return { plan: toPlan(plan) };
    },
    async getPlan(req) {
      return { plan: toPlan(await deps.plans.get(requireScope(req.scope), req.planId)) };
    },
    async listPlans(req) {
      const plans = await deps.plans.list(
        requireScope(req.scope),
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        { isActive: req.isActive },
      );
      return { plans: plans.map(toPlan) };
    },
    async updatePlan(req) {
      const plan = await updatePlan(deps, requireScope(req.scope), req.planId, {
        name: req.name,
        description: req.description,
        isActive: req.isActive,
        metadata: req.metadata,
        otherFields: req.otherFields,
      });
      return { plan: toPlan(plan) };
    },
    async deactivatePlan(req) {
      return { plan: toPlan(await deactivatePlan(deps, requireScope(req.scope), req.planId)) };
    },
  };
  return unaryService(handlers, logger);
}
