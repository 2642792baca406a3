import { toMajorUnits } from '@billing/platform';
import { checkoutPrice } from '@billing/payments';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { PlanModel } from '../db/models/plan.model';

export const checkoutUrl = (publicUrl: string, code: string) => `${publicUrl}/checkout/${code}`;

/** What a session's first period costs with its coupon (docs/api-behaviour.md §19). */
export const sessionPrice = (session: CheckoutSessionModel, plan: Pick<PlanModel, 'amount'>) =>
  checkoutPrice(plan, session.coupon);

/** The session as merchants see it (API responses and the data of checkout.session.* events). */
export function checkoutSessionResource(
  session: CheckoutSessionModel,
  plan: Pick<PlanModel, 'amount' | 'currency'>,
  publicUrl: string,
) {
  const price = sessionPrice(session, plan);
  return {
    id: session.id,
    code: session.code,
    checkout_url: checkoutUrl(publicUrl, session.code),
    status: session.status,
    plan_id: session.planId,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    customer_email: session.customerEmail,
    customer_name: session.customerName,
    customer_id: session.customerId,
    subscription_id: session.subscriptionId,
    metadata: session.metadata,
    allow_promotion_codes: session.allowPromotionCodes,
    coupon_code: session.coupon?.code ?? null,
    amount_subtotal: toMajorUnits(price.subtotal),
    amount_discount: toMajorUnits(price.discount),
    amount_total: toMajorUnits(price.total),
    currency: plan.currency,
    livemode: session.livemode,
    expires_at: session.expiresAt.toISOString(),
    completed_at: session.completedAt ? session.completedAt.toISOString() : null,
    created_at: session.createdAt.toISOString(),
  };
}
