import { DomainError, requireScope } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { validatePlanSnapshot } from '../domain/checkout-completion';
import type { CancelledBy } from '../db/models/subscription.model';
import type { BillingDeps } from '../billing-deps';
import { cancelSubscription } from '../usecases/subscriptions/cancel-subscription.usecase';
import { changePlan } from '../usecases/subscriptions/change-plan.usecase';
import type { PlanChangeCommand } from '../subscription-changes/plan-change-request';
import { createSubscription } from '../usecases/subscriptions/create-subscription.usecase';
import { getSubscription } from '../usecases/subscriptions/get-subscription.usecase';
import { listSubscriptions } from '../usecases/subscriptions/list-subscriptions.usecase';
import { pauseSubscription } from '../usecases/subscriptions/pause-subscription.usecase';
import { previewCancellation } from '../usecases/subscriptions/preview-cancellation.usecase';
import { previewPlanChange } from '../usecases/subscriptions/preview-plan-change.usecase';
import { resumeSubscription } from '../usecases/subscriptions/resume-subscription.usecase';
import { applySubscriptionDiscount } from '../usecases/subscriptions/apply-subscription-discount.usecase';
import { removeSubscriptionDiscount } from '../usecases/subscriptions/remove-subscription-discount.usecase';
import { updateSubscription } from '../usecases/subscriptions/update-subscription.usecase';
import {
  couponTerms,
  requestedDiscount,
  requestedTaxRateIds,
  toInvoice,
  toInvoiceTaxAmount,
  toRefund,
  toSubscription,
  type BillingHandlers,
} from './billing-messages';

/** Through the API a merchant cancels; the hosted pages say CUSTOMER; SYSTEM is dunning's alone. */
function cancelledBy(value: string): CancelledBy {
  if (!value || value === 'MERCHANT') return 'MERCHANT';
  if (value === 'CUSTOMER') return 'CUSTOMER';
  throw DomainError.invalid([
    { loc: ['cancelled_by'], msg: "Input should be 'MERCHANT' or 'CUSTOMER'", type: 'enum', input: value },
  ]);
}

/** IMMEDIATE (the default) or NONE (docs/api-behaviour.md §18). */
function proration(value: string): PlanChangeCommand['proration'] {
  if (!value || value === 'IMMEDIATE') return 'IMMEDIATE';
  if (value === 'NONE') return 'NONE';
  throw DomainError.invalid([
    { loc: ['body', 'proration'], msg: "Input should be 'IMMEDIATE' or 'NONE'", type: 'enum', input: value },
  ]);
}

/** The plan-change command of a ChangePlan or PreviewPlanChange request. */
function planChangeOf(req: billingV1.PreviewPlanChangeRequest): Omit<PlanChangeCommand, 'idempotencyKey'> {
  if (!req.plan) throw DomainError.invalid([{ loc: ['plan'], msg: 'Field required', type: 'missing' }]);
  return {
    subscriptionId: req.subscriptionId,
    plan: validatePlanSnapshot(req.plan),
    proration: proration(req.proration),
    atPeriodEnd: req.atPeriodEnd,
  };
}

/** Subscriptions (docs/api-behaviour.md §8). Thin: proto request -> use case -> proto response. */
export function subscriptionHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async createSubscription(req) {
      if (!req.plan) throw DomainError.invalid([{ loc: ['plan'], msg: 'Field required', type: 'missing' }]);
      const plan = validatePlanSnapshot(req.plan);
      const view = await createSubscription(deps, requireScope(req.scope), {
        customerId: req.customerId,
        plan,
        discount: requestedDiscount(req.coupon, plan.currency),
        trialPeriodDays: req.trialPeriodDays,
        billingCycles: req.billingCycles,
        metadata: req.metadata ?? {},
        idempotencyKey: req.idempotencyKey || undefined,
        // Unset: the plan's rates, as null says.
        taxRateIds: requestedTaxRateIds(req.taxRates) ?? null,
      });
      return { subscription: toSubscription(view) };
    },
    async updateSubscription(req) {
      const view = await updateSubscription(deps, requireScope(req.scope), req.subscriptionId, {
        taxRateIds: requestedTaxRateIds(req.taxRates),
      });
      return { subscription: toSubscription(view) };
    },
    async listSubscriptions(req) {
      const views = await listSubscriptions(
        deps,
        requireScope(req.scope),
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        { status: req.status, customerId: req.customerId, planId: req.planId },
      );
      return { subscriptions: views.map(toSubscription) };
    },
    async getSubscription(req) {
      return { subscription: toSubscription(await getSubscription(deps, requireScope(req.scope), req.subscriptionId)) };
    },
    async pauseSubscription(req) {
      const view = await pauseSubscription(deps, requireScope(req.scope), req.subscriptionId);
      return { subscription: toSubscription(view) };
    },
    async resumeSubscription(req) {
      const view = await resumeSubscription(deps, requireScope(req.scope), req.subscriptionId);
      return { subscription: toSubscription(view) };
    },
    async cancelSubscription(req) {
      const { view, refund } = await cancelSubscription(deps, requireScope(req.scope), {
        subscriptionId: req.subscriptionId,
        atPeriodEnd: req.atPeriodEnd,
        cancelledBy: cancelledBy(req.cancelledBy),
        policyId: req.policyId || undefined,
        reason: req.reason,
        idempotencyKey: req.idempotencyKey || undefined,
      });
      return { subscription: toSubscription(view), refund: toRefund(refund) };
    },
    async applySubscriptionDiscount(req) {
      const coupon = couponTerms(req.coupon);
      if (!coupon) throw DomainError.invalid([{ loc: ['coupon'], msg: 'Field required', type: 'missing' }]);
      const view = await applySubscriptionDiscount(deps, requireScope(req.scope), req.subscriptionId, coupon);
      return { subscription: toSubscription(view) };
    },
    async removeSubscriptionDiscount(req) {
      const view = await removeSubscriptionDiscount(deps, requireScope(req.scope), req.subscriptionId);
      return { subscription: toSubscription(view) };
    },
    async previewCancellation(req) {
      const refund = await previewCancellation(deps, requireScope(req.scope), {
        subscriptionId: req.subscriptionId,
        atPeriodEnd: req.atPeriodEnd,
        policyId: req.policyId || undefined,
      });
      return { refund: toRefund(refund) };
    },
    async changePlan(req) {
      const { view, invoice } = await changePlan(deps, requireScope(req.scope), {
        ...planChangeOf(req),
        idempotencyKey: req.idempotencyKey || undefined,
      });
      return { subscription: toSubscription(view), latestInvoice: invoice ? toInvoice(invoice) : undefined };
    },
    async previewPlanChange(req) {
      const preview = await previewPlanChange(deps, requireScope(req.scope), planChangeOf(req));
      return {
        lines: preview.lines.map((line) => ({ ...line, taxRateIds: line.taxRateIds ?? [] })),
        subtotal: preview.totals.subtotal,
        discount: preview.totals.discount,
        tax: preview.totals.tax,
        totalExcludingTax: preview.totals.totalExcludingTax,
        amount: preview.totals.amount,
        totalTaxAmounts: preview.totals.taxAmounts.map(toInvoiceTaxAmount),
        taxNote: preview.totals.taxNote ?? undefined,
        creditApplied: preview.totals.creditApplied,
        amountDue: preview.totals.amountDue,
        creditToBalance: preview.totals.creditToBalance,
        periodStart: preview.period.start,
        periodEnd: preview.period.end,
        currency: preview.currency,
      };
    },
  };
}
