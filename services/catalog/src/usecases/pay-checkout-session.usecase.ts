import { randomBytes } from 'node:crypto';
import { DomainError, isGrpcServiceError, readRemoteError } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { isValidEmail } from '../domain/checkout-session';
import { checkoutChargeAmount } from '@billing/payments';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import { PlanModel } from '../db/models/plan.model';
import type { CatalogDeps } from './catalog-deps';
import { moveOutOfPending } from './move-checkout-session';

/** A hosted-page action on a session that is not PENDING any more, or a page-level input error. */
export class CheckoutPageError extends Error {
  constructor(
    message: string,
    readonly session: CheckoutSessionModel | null,
  ) {
    super(message);
  }
}

export async function findOpenSession(deps: CatalogDeps, code: string): Promise<CheckoutSessionModel | null> {
  const session = await deps.checkoutSessions.findByCode(code);
  if (
    session?.status === 'PENDING' &&
    session.expiresAt.getTime() <=
      (await deps.clocks.now({ projectId: session.projectId, livemode: session.livemode })).getTime()
  ) {
    // Expired but not swept yet: show it as expired now rather than take a payment.
    await deps.sequelize.transaction((transaction) => moveOutOfPending(deps, session.id, 'EXPIRED', {}, transaction));
    await session.reload();
  }
  return session;
}

/**
 * "Pay" on the hosted page: starts a provider transaction for the first charge (or the trial's
 * verification charge) and returns where to send the customer.
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
  const plan = await PlanModel.findByPk(session.planId, { rejectOnEmpty: true });
  const reference = `cs-${session.code}-${randomBytes(6).toString('hex')}`;
  const transaction = await deps.paymentsFor(session.livemode).initializeTransaction({
    email,
    amount: checkoutChargeAmount(plan),
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
  await deps.checkoutSessions.recordPaymentStart(session.id, { reference, email, name });
  return transaction.authorizationUrl;
}

/**
 * The provider's redirect back and its `charge.success` webhook both land here; whichever comes
 * first completes the session, the other finds it COMPLETED and does nothing. Billing makes the
 * customer/subscription/invoice exactly once per session; the conditional UPDATE makes the
 * session's own move and its event happen once.
 */
export async function completeCheckoutPayment(
  deps: CatalogDeps,
  session: CheckoutSessionModel,
  reference: string,
): Promise<CheckoutSessionModel> {
  if (session.status === 'COMPLETED') return session;
  if (session.status !== 'PENDING')
    throw new CheckoutPageError(`This checkout is ${session.status.toLowerCase()}.`, session);
  const plan = await PlanModel.findByPk(session.planId, { rejectOnEmpty: true });
  let completed: billingV1.CompleteCheckoutResponse;
  try {
    completed = await deps.billing.completeCheckout({
      scope: { projectId: session.projectId, merchantId: session.merchantId, livemode: session.livemode },
      checkoutSessionId: session.id,
      transactionReference: reference,
      plan: {
        planId: plan.id,
        name: plan.name,
        amount: plan.amount,
        currency: plan.currency,
        interval: plan.interval,
        intervalCount: plan.intervalCount,
        trialPeriodDays: plan.trialPeriodDays,
        usageUnitAmount: plan.usageUnitAmount ?? undefined,
      },
      customerEmail: session.customerEmail ?? '',
      customerName: session.customerName ?? '',
      metadata: session.metadata,
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
  const completedAt = await deps.clocks.now({ projectId: session.projectId, livemode: session.livemode });
  await deps.sequelize.transaction((transaction) =>
    moveOutOfPending(
      deps,
      session.id,
      'COMPLETED',
      {
        customerId: completed.customerId,
        subscriptionId: completed.subscriptionId,
        completedAt,
      },
      transaction,
    ),
  );
  await session.reload();
  return session;
}

/** "Cancel" on the hosted page. */
export async function cancelCheckout(deps: CatalogDeps, code: string): Promise<CheckoutSessionModel> {
  const session = await findOpenSession(deps, code);
  if (!session) throw new DomainError('not_found', 'Checkout session not found');
  await deps.sequelize.transaction((transaction) => moveOutOfPending(deps, session.id, 'CANCELLED', {}, transaction));
  await session.reload();
  return session;
}
