import type { CheckoutSessionModel } from '../db/models/checkout-session.model';

export const checkoutUrl = (publicUrl: string, code: string) => `${publicUrl}/checkout/${code}`;

/** The session as merchants see it (API responses and the data of checkout.session.* events). */
export function checkoutSessionResource(session: CheckoutSessionModel, publicUrl: string) {
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
    livemode: session.livemode,
    expires_at: session.expiresAt.toISOString(),
    completed_at: session.completedAt ? session.completedAt.toISOString() : null,
    created_at: session.createdAt.toISOString(),
  };
}
