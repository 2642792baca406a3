import { DomainError, requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { PlanModel } from '../db/models/plan.model';
import type { CatalogDeps } from '../usecases/catalog-deps';
import { checkoutUrl } from '../usecases/checkout-session-resource';
import { createCheckoutSession } from '../usecases/create-checkout-session.usecase';
import { createPlan } from '../usecases/create-plan.usecase';
import { expireCheckoutSession } from '../usecases/expire-checkout-session.usecase';
import { advanceTestClock } from '../usecases/advance-test-clock.usecase';
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

const toSession = (s: CheckoutSessionModel, publicUrl: string): catalogV1.CheckoutSession => ({
  id: s.id,
  projectId: s.projectId,
  livemode: s.livemode,
  code: s.code,
  checkoutUrl: checkoutUrl(publicUrl, s.code),
  planId: s.planId,
  status: s.status,
  successUrl: s.successUrl ?? undefined,
  cancelUrl: s.cancelUrl ?? undefined,
  customerEmail: s.customerEmail ?? undefined,
  customerName: s.customerName ?? undefined,
  metadata: s.metadata,
  customerId: s.customerId ?? undefined,
  subscriptionId: s.subscriptionId ?? undefined,
  expiresAt: s.expiresAt,
  completedAt: s.completedAt ?? undefined,
  createdAt: s.createdAt,
});

/** Thin: proto request -> use case -> proto response. */
export function catalogHandlers(deps: CatalogDeps, logger: Logger): catalogV1.CatalogServiceServer {
  const session = (s: CheckoutSessionModel) => ({ session: toSession(s, deps.publicUrl) });
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
    async createCheckoutSession(req) {
      return session(
        await createCheckoutSession(deps, requireScope(req.scope), req.planId, {
          successUrl: req.successUrl,
          cancelUrl: req.cancelUrl,
          customerEmail: req.customerEmail,
          customerName: req.customerName,
          expiresInMinutes: req.expiresInMinutes,
          metadata: req.metadata,
        }),
      );
    },
    async getCheckoutSession(req) {
      return session(await deps.checkoutSessions.getByCode(requireScope(req.scope), req.code));
    },
    async advanceTestClock(req) {
      if (!req.to) throw new DomainError('invalid_argument', 'to is required');
      return { expiredSessions: await advanceTestClock(deps, requireScope(req.scope), req.to) };
    },
    async expireCheckoutSession(req) {
      return session(await expireCheckoutSession(deps, requireScope(req.scope), req.code));
    },
  };
  return unaryService(handlers, logger);
}
