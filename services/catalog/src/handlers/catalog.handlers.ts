import {
  DomainError,
  requireScope,
  unaryService,
  type Logger,
  type ProjectScope,
  type UnaryHandlers,
} from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CouponModel } from '../db/models/coupon.model';
import type { PlanModel } from '../db/models/plan.model';
import type { CatalogDeps } from '../catalog-deps';
import { sessionTaxRateIds } from '../domain/checkout-session';
import { checkoutUrl } from '../read-models/checkout-session.read-model';
import { couponSnapshotMessage } from '../coupon-redemptions/coupon-snapshot-message';
import { createCoupon } from '../usecases/coupons/create-coupon.usecase';
import { deactivateCoupon } from '../usecases/coupons/deactivate-coupon.usecase';
import { redeemCoupon } from '../usecases/coupons/redeem-coupon.usecase';
import { releaseCouponRedemption } from '../usecases/coupons/release-coupon-redemption.usecase';
import { createCheckoutSession } from '../usecases/checkout-sessions/create-checkout-session.usecase';
import { createPlan } from '../usecases/plans/create-plan.usecase';
import { expireCheckoutSession } from '../usecases/checkout-sessions/expire-checkout-session.usecase';
import { advanceTestClock } from '../usecases/test-clocks/advance-test-clock.usecase';
import { deactivatePlan } from '../usecases/plans/deactivate-plan.usecase';
import { updatePlan } from '../usecases/plans/update-plan.usecase';
import { applyCouponToSubscriptionWorkflow } from '../workflows/apply-coupon-to-subscription.workflow';
import type { WorkflowContext } from '../workflows/create-workflow';
import { subscribeWithCouponWorkflow } from '../workflows/subscribe-with-coupon.workflow';

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
  taxRateIds: p.taxRateIds,
});

const toSession = (
  s: CheckoutSessionModel,
  plan: Pick<PlanModel, 'currency'>,
  publicUrl: string,
): catalogV1.CheckoutSession => {
  // Billing's quote of the first invoice, kept on the session (docs/api-behaviour.md §21).
  const { quote } = s;
  return {
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
    allowPromotionCodes: s.allowPromotionCodes,
    couponCode: s.coupon?.code,
    amountSubtotal: quote.subtotal,
    amountDiscount: quote.discount,
    amountTax: quote.tax,
    amountTotal: quote.amount,
    totalTaxAmounts: quote.taxAmounts,
    taxRateIds: sessionTaxRateIds(s),
    currency: plan.currency,
  };
};

const toCoupon = (c: CouponModel): catalogV1.Coupon => ({
  id: c.id,
  projectId: c.projectId,
  livemode: c.livemode,
  code: c.code,
  name: c.name ?? undefined,
  percentOff: c.percentOff ?? undefined,
  amountOff: c.amountOff ?? undefined,
  currency: c.currency ?? undefined,
  duration: c.duration,
  durationInPeriods: c.durationInPeriods ?? undefined,
  maxRedemptions: c.maxRedemptions ?? undefined,
  timesRedeemed: c.timesRedeemed,
  redeemBy: c.redeemBy ?? undefined,
  planIds: c.planIds,
  isActive: c.isActive,
  createdAt: c.createdAt,
});

const missing = (...loc: string[]) => DomainError.invalid([{ loc, msg: 'Field required', type: 'missing' }]);

/** A coupon workflow's caller: without its API key a retry could not find its redemption. */
function couponCallerOf(caller: catalogV1.CouponCaller | undefined): catalogV1.CouponCaller {
  if (!caller?.apiKeyId) throw missing('caller', 'api_key_id');
  return caller;
}

/** Thin: proto request -> use case (or workflow) -> proto response. */
export function catalogHandlers(deps: CatalogDeps, logger: Logger): catalogV1.CatalogServiceServer {
  const workflowContext = (caller: catalogV1.CouponCaller, deadline?: Date): WorkflowContext<CatalogDeps> => ({
    deps,
    requestId: caller.requestId,
    deadline,
    logger,
  });
  // The session's currency is its plan's: the plan is read through its repository.
  const session = async (scope: ProjectScope, s: CheckoutSessionModel) => ({
    session: toSession(s, await deps.plans.get(scope, s.planId), deps.publicUrl),
  });
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
        taxRateIds: req.taxRateIds,
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
        taxRateIds: req.taxRates?.ids,
        otherFields: req.otherFields,
      });
      return { plan: toPlan(plan) };
    },
    async deactivatePlan(req) {
      return { plan: toPlan(await deactivatePlan(deps, requireScope(req.scope), req.planId)) };
    },
    async createCheckoutSession(req) {
      const scope = requireScope(req.scope);
      return session(
        scope,
        await createCheckoutSession(deps, scope, req.planId, {
          successUrl: req.successUrl,
          cancelUrl: req.cancelUrl,
          customerEmail: req.customerEmail,
          customerName: req.customerName,
          expiresInMinutes: req.expiresInMinutes,
          metadata: req.metadata,
          couponCode: req.couponCode,
          allowPromotionCodes: req.allowPromotionCodes,
          taxRateIds: req.taxRates ? req.taxRates.ids : null,
        }),
      );
    },
    async getCheckoutSession(req) {
      const scope = requireScope(req.scope);
      return session(scope, await deps.checkoutSessions.getByCode(scope, req.code));
    },
    async advanceTestClock(req) {
      if (!req.to) throw new DomainError('invalid_argument', 'to is required');
      return { expiredSessions: await advanceTestClock(deps, requireScope(req.scope), req.to) };
    },
    async expireCheckoutSession(req) {
      const scope = requireScope(req.scope);
      return session(scope, await expireCheckoutSession(deps, scope, req.code));
    },
    async createCoupon(req) {
      const coupon = await createCoupon(deps, requireScope(req.scope), {
        code: req.code,
        name: req.name,
        percentOff: req.percentOff,
        amountOff: req.amountOff,
        currency: req.currency,
        duration: req.duration,
        durationInPeriods: req.durationInPeriods,
        maxRedemptions: req.maxRedemptions,
        redeemBy: req.redeemBy,
        planIds: req.planIds,
      });
      return { coupon: toCoupon(coupon) };
    },
    async listCoupons(req) {
      const coupons = await deps.coupons.list(requireScope(req.scope), {
        limit: req.page?.limit,
        startingAfter: req.page?.startingAfter || undefined,
      });
      return { coupons: coupons.map(toCoupon) };
    },
    async getCoupon(req) {
      return { coupon: toCoupon(await deps.coupons.get(requireScope(req.scope), req.couponId)) };
    },
    async deactivateCoupon(req) {
      return { coupon: toCoupon(await deactivateCoupon(deps, requireScope(req.scope), req.couponId)) };
    },
    async redeemCoupon(req) {
      const redemption = await redeemCoupon(deps, requireScope(req.scope), {
        code: req.code,
        redemptionKey: req.redemptionKey,
        planId: req.planId,
        currency: req.currency,
      });
      return { coupon: couponSnapshotMessage(redemption.coupon), created: redemption.created };
    },
    async releaseCouponRedemption(req) {
      return { released: await releaseCouponRedemption(deps, requireScope(req.scope), req.redemptionKey) };
    },
    async subscribeWithCoupon(req, { deadline }) {
      const caller = couponCallerOf(req.caller);
      const request = req.subscription;
      const scope = requireScope(request?.scope);
      if (!request?.plan) throw missing('subscription', 'plan');
      const { subscription } = await subscribeWithCouponWorkflow(workflowContext(caller, deadline), {
        subscription: { ...request, scope, plan: request.plan },
        couponCode: req.couponCode,
        apiKeyId: caller.apiKeyId,
      });
      return { subscription };
    },
    async applyCouponToSubscription(req, { deadline }) {
      const caller = couponCallerOf(req.caller);
      const { subscription } = await applyCouponToSubscriptionWorkflow(workflowContext(caller, deadline), {
        scope: requireScope(req.scope),
        subscriptionId: req.subscriptionId,
        couponCode: req.couponCode,
        apiKeyId: caller.apiKeyId,
        idempotencyKey: req.idempotencyKey,
      });
      return { subscription };
    },
  };
  return unaryService(handlers, logger);
}
