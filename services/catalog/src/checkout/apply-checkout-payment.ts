import { isGrpcServiceError, readRemoteError } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CheckoutPaymentState } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from '../catalog-deps';
import { couponSnapshotMessage } from '../coupon-redemptions/coupon-snapshot-message';
import { CheckoutPageError } from './checkout-page-error';
import { planSnapshotMessage } from './first-invoice-quote';
import { moveOutOfPending } from './move-out-of-pending';

/** Billing's word on a payment; PENDING (not final at the provider) leaves it STARTED. */
const stateOf = (outcome: string): CheckoutPaymentState =>
  outcome === 'USED' || outcome === 'REFUNDED' || outcome === 'NOT_PAID' ? outcome : 'STARTED';

/**
 * A provider transaction came back for a session (the payer's redirect, the provider's
 * `charge.success`, or the expiry sweep finding it paid). Only a transaction this session
 * started counts: any other reference (forged, another session's, a renewal's) changes nothing
 * and returns null.
 *
 * A PENDING session is completed with it: the session row stays locked from before billing is
 * asked until COMPLETED is committed, so an expiry or a cancel in between waits and then finds
 * it completed (the sweep skips it). Billing makes the customer, subscription and invoice once
 * per session; if another payment completed it already, billing refunds this one.
 * A session that ended (completed by another payment, expired, cancelled): billing refunds this
 * payment if the provider took it (docs/payment-recovery.md).
 */
export async function applyCheckoutPayment(
  deps: CatalogDeps,
  session: CheckoutSessionModel,
  reference: string,
): Promise<CheckoutSessionModel | null> {
  const payment = await deps.checkoutPayments.findOfSession(session.id, reference);
  if (!payment) return null;
  const scope = { projectId: session.projectId, merchantId: session.merchantId, livemode: session.livemode };
  const completed = await deps.sequelize.transaction(async (transaction) => {
    const locked = await deps.checkoutSessions.lockById(session.id, transaction);
    if (locked?.status !== 'PENDING') return false;
    const completion = await completeInBilling(deps, locked, reference);
    const completedAt = await deps.clocks.now(scope, transaction);
    await moveOutOfPending(
      deps,
      session.id,
      'COMPLETED',
      { customerId: completion.customerId, subscriptionId: completion.subscriptionId, completedAt },
      transaction,
    );
    await deps.checkoutPayments.settle(
      reference,
      stateOf(completion.paymentOutcome || 'USED'),
      deps.clock.now(),
      transaction,
    );
    return true;
  });
  if (!completed && payment.state === 'STARTED') {
    const { outcome } = await deps.billing.settleUnusedCheckoutPayment({
      scope,
      checkoutSessionId: session.id,
      transactionReference: reference,
    });
    await deps.checkoutPayments.settle(reference, stateOf(outcome), deps.clock.now());
  }
  await deps.checkoutSessions.refresh(session);
  return session;
}

async function completeInBilling(
  deps: CatalogDeps,
  session: CheckoutSessionModel,
  reference: string,
): Promise<billingV1.CompleteCheckoutResponse> {
  const plan = await deps.plans.ofSession(session.planId);
  try {
    return await deps.billing.completeCheckout({
      scope: { projectId: session.projectId, merchantId: session.merchantId, livemode: session.livemode },
      checkoutSessionId: session.id,
      transactionReference: reference,
      // The plan with its rates as the session kept them: what its page quoted (§21).
      plan: planSnapshotMessage(plan, session.planTaxRateIds),
      taxRates: session.taxRateIds ? { fromPlan: false, ids: session.taxRateIds } : undefined,
      customerEmail: session.customerEmail ?? '',
      customerEmailTypedByPayer: session.customerEmailTypedByPayer,
      customerName: session.customerName ?? '',
      metadata: session.metadata,
      // Fixed since the payment started (applyPromotionCode): the terms this payment paid with.
      coupon: session.coupon ? couponSnapshotMessage(session.coupon) : undefined,
    });
  } catch (err) {
    if (isGrpcServiceError(err) && readRemoteError(err).reason === 'payment_required') {
      throw new CheckoutPageError(
        `Your payment did not go through: ${readRemoteError(err).detail}. Please try again.`,
        session,
      );
    }
    throw err;
  }
}
