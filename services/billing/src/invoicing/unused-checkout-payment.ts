import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, type ProjectScope } from '@billing/platform';
import type { PaymentModel } from '../db/models';
import { assertPaymentOfSession, verifiedPaymentFields } from '../domain/checkout-completion';
import type { BillingDeps } from '../billing-deps';
import { callProvider } from '../provider-call';
import { recordSecondPaymentNote } from './credit-notes';
import { issueRefunds } from './refund-issuing';

export type UnusedPaymentOutcome = 'USED' | 'REFUNDED' | 'NOT_PAID' | 'PENDING';

export interface UnusedCheckoutPayment {
  checkoutSessionId: string;
  transactionReference: string;
}

/**
 * A payment of a checkout session that did not complete it: a second Pay (two tabs), or a
 * payment made after the session expired or was cancelled. Billing owns its refund because
 * billing owns the money records: the payments ledger (one row per provider transaction, its
 * reference UNIQUE) and the refunds table with its exactly-once issuing (claim, look before
 * resending, the sweep of PENDING and PROCESSING refunds), which catalog would otherwise copy.
 *
 * Under the session's completion lock: a payment already in the ledger answers what it was
 * (USED or REFUNDED); a new one the provider took is written as an UNUSED_CHECKOUT payment and
 * a PENDING refund in one transaction (so a crash cannot lose the decision, and the unique
 * references cannot repeat it), then issued. NOT_PAID and PENDING change nothing.
 */
export async function refundUnusedCheckoutPayment(
  deps: BillingDeps,
  scope: ProjectScope,
  payment: UnusedCheckoutPayment,
): Promise<UnusedPaymentOutcome> {
  const known = await deps.payments.findByReference(payment.transactionReference);
  if (known) return outcomeOf(known, scope, payment.checkoutSessionId);
  const verified = await callProvider('verify the payment', () =>
    deps.providerFor(scope.livemode).verifyTransaction(payment.transactionReference),
  );
  if (!verified || verified.status === 'failed') return 'NOT_PAID';
  if (verified.status !== 'success') return 'PENDING';
  // Never refund what another session (or a renewal) paid: the provider's metadata must name it.
  assertPaymentOfSession(verified, payment.checkoutSessionId, { required: true });

  const refund = await deps.sequelize.transaction(async (transaction) => {
    await lockCheckoutSession(deps, payment.checkoutSessionId, transaction);
    const again = await deps.payments.findByReference(payment.transactionReference, transaction);
    if (again) return null;
    const subscription = await deps.subscriptions.findByCheckoutSession(payment.checkoutSessionId, transaction);
    const now = await deps.clocks.now(scope, transaction);
    const recorded = await deps.payments.record(
      scope,
      {
        id: randomUUID(),
        purpose: 'UNUSED_CHECKOUT',
        customerId: subscription?.customerId ?? null,
        invoiceId: null,
        checkoutSessionId: payment.checkoutSessionId,
        ...verifiedPaymentFields(verified),
        createdAt: now,
      },
      transaction,
    );
    const refund = await deps.refunds.create(
      scope,
      {
        id: randomUUID(),
        reference: `unused:${verified.reference}`,
        paymentId: recorded.id,
        transactionReference: verified.reference,
        invoiceId: null,
        subscriptionId: subscription?.id ?? null,
        amount: verified.amount,
        currency: recorded.currency,
        reason: 'UNUSED_CHECKOUT_PAYMENT',
        createdAt: now,
        updatedAt: deps.clock.now(),
      },
      transaction,
    );
    // The session was completed by another payment, which paid its first invoice: this one is a
    // second payment of that invoice, and its refund has a DUPLICATE note (§23). A session that
    // expired or was cancelled made no invoice, and a trial's checkout paid none.
    const invoice = subscription && (await deps.invoices.findFirstOfSubscription(subscription.id, transaction));
    if (invoice?.status === 'PAID' && invoice.amountPaid > 0) {
      const locked = (await deps.invoices.lock(invoice.id, transaction))!;
      await recordSecondPaymentNote(deps, { invoice: locked, refund, at: now }, transaction);
    }
    return refund;
  });
  if (refund) {
    deps.logger.warn(
      { checkout_session_id: payment.checkoutSessionId, reference: verified.reference },
      'unused checkout payment refunded',
    );
    // Never throws; a refund the provider could not take stays PENDING for the sweep.
    await issueRefunds(deps, [refund]);
    return 'REFUNDED';
  }
  return outcomeOf(
    (await deps.payments.findByReference(payment.transactionReference))!,
    scope,
    payment.checkoutSessionId,
  );
}

function outcomeOf(known: PaymentModel, scope: ProjectScope, checkoutSessionId: string): UnusedPaymentOutcome {
  // Completions recorded before payments named their session (migration 0011) are taken as used.
  const otherSession = known.checkoutSessionId !== null && known.checkoutSessionId !== checkoutSessionId;
  if (otherSession || known.projectId !== scope.projectId || known.livemode !== scope.livemode) {
    throw new DomainError('failed_precondition', 'This payment belongs to something other than this checkout session');
  }
  return known.purpose === 'UNUSED_CHECKOUT' ? 'REFUNDED' : 'USED';
}

/** Completions and unused-payment refunds of one session run one after the other. */
export async function lockCheckoutSession(deps: BillingDeps, checkoutSessionId: string, transaction: Transaction) {
  await deps.payments.lockCheckoutSession(checkoutSessionId, transaction);
}
