import { randomBytes } from 'node:crypto';
import { DomainError } from '@billing/platform';
import { isValidEmail } from '../../domain/checkout-session';
import { CheckoutPageError } from '../../checkout/checkout-page-error';
import { findOpenSession } from '../../checkout/find-open-session';
import type { CatalogDeps } from '../../catalog-deps';

/**
 * "Pay" on the hosted page: starts a provider transaction for the charge of billing's quote kept
 * on the session (its first invoice with the coupon and the taxes, or the verification charge of
 * a trial or of a first invoice that comes to nothing; docs/api-behaviour.md §21) and returns
 * where to send the customer.
 */
export async function startCheckoutPayment(
  deps: CatalogDeps,
  code: string,
  form: { email?: string; name?: string },
): Promise<string> {
  const session = await findOpenSession(deps, code);
  if (!session) throw new DomainError('not_found', 'Checkout session not found');
  if (session.status !== 'PENDING')
    throw new CheckoutPageError(`This checkout is ${session.status.toLowerCase()}.`, session);
  const email = (session.customerEmail ?? form.email ?? '').trim();
  if (!isValidEmail(email)) throw new CheckoutPageError('Please enter a valid email address.', session);
  const name = session.customerName ?? (form.name?.trim() || null);
  const plan = await deps.plans.ofSession(session.planId);
  const reference = `cs-${session.code}-${randomBytes(6).toString('hex')}`;
  // Under the session's row lock: the quote read here is the one this payment pays, and a
  // promotion code applied at the same moment waits, then finds this payment started (the price
  // no longer changes: applyPromotionCode).
  const quote = await deps.sequelize.transaction(async (transaction) => {
    const locked = await deps.checkoutSessions.lockById(session.id, transaction);
    if (locked?.status !== 'PENDING')
      throw new CheckoutPageError(`This checkout is ${(locked ?? session).status.toLowerCase()}.`, session);
    await deps.checkoutPayments.recordStart(session.id, reference, deps.clock.now(), transaction);
    return locked.quote;
  });
  const transaction = await deps.paymentsFor(session.livemode).initializeTransaction({
    email,
    amount: quote.chargeAmount,
    currency: plan.currency,
    reference,
    callbackUrl: `${deps.publicUrl}/checkout/${session.code}/callback`,
    // cancel_action: the provider's own "cancel" link brings the customer back to our form.
    metadata: {
      checkout_session_code: session.code,
      checkout_session_id: session.id,
      cancel_action: `${deps.publicUrl}/checkout/${session.code}`,
    },
  });
  // An e-mail the merchant did not give is the payer's word: kept as such for billing (§20).
  const emailTypedByPayer = session.customerEmail === null || session.customerEmailTypedByPayer;
  await deps.checkoutSessions.recordPaymentStart(session.id, { reference, email, name, emailTypedByPayer });
  return transaction.authorizationUrl;
}
