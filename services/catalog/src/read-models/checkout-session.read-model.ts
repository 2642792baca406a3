import { taxAmountView, toMajorUnits } from '@billing/platform';
import { sessionTaxRateIds } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { PlanModel } from '../db/models/plan.model';

export const checkoutUrl = (publicUrl: string, code: string) => `${publicUrl}/checkout/${code}`;

/** The session as merchants see it (API responses and the data of checkout.session.* events). */
export function checkoutSessionResource(
  session: CheckoutSessionModel,
  plan: Pick<PlanModel, 'currency'>,
  publicUrl: string,
) {
  // Billing's quote of the first invoice, kept on the session (docs/api-behaviour.md §21).
  const { quote } = session;
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
    tax_rate_ids: sessionTaxRateIds(session),
    amount_subtotal: toMajorUnits(quote.subtotal),
    amount_discount: toMajorUnits(quote.discount),
    amount_tax: toMajorUnits(quote.tax),
    amount_total: toMajorUnits(quote.amount),
    total_tax_amounts: quote.taxAmounts.map(taxAmountView),
    currency: plan.currency,
    livemode: session.livemode,
    expires_at: session.expiresAt.toISOString(),
    completed_at: session.completedAt ? session.completedAt.toISOString() : null,
    created_at: session.createdAt.toISOString(),
  };
}
