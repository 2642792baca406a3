import { randomUUID } from 'node:crypto';
import type { CardUpdateModel, RefundModel } from '../db/models';
import { verifiedPaymentFields } from '../domain/checkout-completion';
import type { BillingDeps } from '../billing-deps';
import { chargeInvoice } from '../invoicing/invoice-payment';
import { issueRefunds } from '../invoicing/refund-issuing';
import { callProvider } from '../provider-call';

/**
 * What a card update came to (docs/api-behaviour.md §20, "Updating the card"); PENDING: no final
 * word from the provider yet.
 */
export type CardUpdateOutcome = 'UPDATED' | 'NOT_PAID' | 'PENDING';

/**
 * Applies a card update the customer portal started, once, whoever asks (the payer's callback,
 * billing's sweep, both at once): the provider is asked what became of the verification charge,
 * then, under the update's row lock, a successful one is recorded as a VERIFICATION payment, its
 * refund in full is decided (a refund of no invoice, no credit note: §23), and the card becomes
 * the subscription's newest card (cardsOfSubscriptions prefers it for renewals and dunning retries). A
 * success whose card the provider will not charge again changes no card (NOT_PAID) and is
 * refunded all the same. After commit the refund is sent (the refund sweep sends it after a
 * crash), and only the caller that applied the update retries the OPEN invoice of a PAST_DUE
 * subscription with the new card, so a second apply charges nothing. Throws when the provider
 * cannot be asked: nothing changed, the caller may ask again.
 */
export async function applyCardUpdate(deps: BillingDeps, started: CardUpdateModel): Promise<CardUpdateOutcome> {
  if (started.state === 'UPDATED') return 'UPDATED';
  const verified = await callProvider('check the card update', () =>
    deps.providerFor(started.livemode).verifyTransaction(started.reference),
  );
  if (!verified || verified.status === 'pending' || verified.status === 'abandoned') {
    // Unknown to the provider (the payer never reached its page) or not finished there.
    await deps.cardUpdates.markChecked(started.reference, deps.clock.now());
    return 'PENDING';
  }
  if (verified.status === 'failed') {
    await deps.cardUpdates.settle(started.reference, 'NOT_PAID', deps.clock.now());
    return 'NOT_PAID';
  }
  // Rows keep no merchant: the scope of the update's own rows (as refundScopeOf does for an invoice's).
  const scope = { projectId: started.projectId, merchantId: '', livemode: started.livemode };
  const applied = await deps.sequelize.transaction(
    async (transaction): Promise<{ outcome: CardUpdateOutcome; refund: RefundModel | null; updated: boolean }> => {
      const update = await deps.cardUpdates.lock(started.reference, transaction);
      if (!update || update.state === 'UPDATED') return { outcome: 'UPDATED', refund: null, updated: false };
      // Its payment recorded already: a success applied before whose card could not be saved.
      if (await deps.payments.findByReference(started.reference, transaction)) {
        return { outcome: 'NOT_PAID', refund: null, updated: false };
      }
      const at = await deps.clocks.now(scope, transaction);
      const payment = await deps.payments.record(
        scope,
        {
          id: randomUUID(),
          purpose: 'VERIFICATION',
          customerId: update.customerId,
          invoiceId: null,
          ...verifiedPaymentFields(verified),
          createdAt: at,
        },
        transaction,
      );
      // Decided here, issued after commit (a provider call inside the transaction could not be
      // rolled back with it); the reference makes it one refund of this payment.
      const refund = await deps.refunds.create(
        scope,
        {
          id: randomUUID(),
          reference: `verification:${started.reference}`,
          paymentId: payment.id,
          transactionReference: started.reference,
          invoiceId: null,
          subscriptionId: update.subscriptionId,
          amount: payment.amount,
          currency: payment.currency,
          reason: 'VERIFICATION',
          createdAt: at,
          updatedAt: deps.clock.now(),
        },
        transaction,
      );
      const card = verified.authorization;
      if (!card?.reusable) {
        await deps.cardUpdates.settle(started.reference, 'NOT_PAID', deps.clock.now(), transaction);
        return { outcome: 'NOT_PAID', refund, updated: false };
      }
      await deps.authorizations.makeSubscriptionCard(update.customerId, update.subscriptionId, card, at, transaction);
      await deps.cardUpdates.settle(started.reference, 'UPDATED', deps.clock.now(), transaction);
      return { outcome: 'UPDATED', refund, updated: true };
    },
  );
  if (applied.refund) await issueRefunds(deps, [applied.refund]);
  if (applied.updated) await retryPastDueInvoice(deps, started);
  return applied.outcome;
}

/**
 * A PAST_DUE subscription's OPEN invoice charged at once to the card just saved, by the same path
 * as POST /invoices/{id}/pay (chargeInvoice: one reference per attempt, invoice.paid and ACTIVE on
 * success, invoice.payment_failed and dunning on a decline). The card is saved whatever happens
 * here: a charge that cannot be made now is left to the invoice's dunning schedule, which charges
 * the new card too.
 */
async function retryPastDueInvoice(deps: BillingDeps, update: CardUpdateModel): Promise<void> {
  const scope = { projectId: update.projectId, merchantId: '', livemode: update.livemode };
  try {
    const subscription = await deps.subscriptions.find(scope, update.subscriptionId);
    if (subscription?.status !== 'PAST_DUE') return;
    const invoice = await deps.invoices.findOpenOfSubscription(subscription.id);
    if (!invoice) return;
    const result = await chargeInvoice(deps, invoice.id);
    deps.logger.info(
      { reference: update.reference, invoice_id: invoice.id, paid: result.paid, pending: result.pending ?? false },
      'past-due invoice retried with the updated card',
    );
  } catch (err) {
    deps.logger.warn({ err, reference: update.reference }, 'past-due invoice not retried; dunning will');
  }
}
