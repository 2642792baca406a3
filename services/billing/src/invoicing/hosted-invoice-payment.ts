import { randomUUID } from 'node:crypto';
import type { HostedInvoicePaymentModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import { refundScopeOf, refundSecondInvoicePayment } from './credit-notes';
import { recordInvoicesPaid } from './invoice-payment/invoice-paid';
import { refundUnwantedCharge } from './invoice-payment/unwanted-charge-refund';
import { issuePendingRefunds } from './refund-issuing';
import { callProvider } from '../provider-call';

/** What a hosted "Pay" came to (docs/api-behaviour.md §22); PENDING: no final word from the provider yet. */
export type HostedPaymentOutcome = 'PAID' | 'REFUNDED' | 'NOT_PAID' | 'PENDING';

/**
 * Applies a payment the hosted invoice page started, once, whoever asks (the payer's callback,
 * billing's sweep, both at once): the provider is asked what became of it, then, under the
 * payment's and the invoice's row locks:
 *  - the invoice is OPEN and the payment is its amount due: it pays the invoice by the one
 *    "invoice paid" rule (invoice.paid, a PAST_DUE subscription ACTIVE, docs/api-behaviour.md
 *    §8), and the card used becomes the subscription's card (it pays the renewals and dunning
 *    retries from then on);
 *  - the invoice was paid first (another tab, the merchant's retry, a dunning charge): refunded
 *    in full with a DUPLICATE credit note (refundSecondInvoicePayment);
 *  - the invoice was closed first (voided, written off): refunded in full (refundUnwantedCharge).
 * A refund decided here is sent to the provider after commit, and by the refund sweep after a
 * crash. Throws when the provider cannot be asked: nothing changed, the caller may ask again.
 */
export async function applyHostedInvoicePayment(
  deps: BillingDeps,
  started: HostedInvoicePaymentModel,
): Promise<HostedPaymentOutcome> {
  if (started.state === 'PAID' || started.state === 'REFUNDED') return started.state;
  const verified = await callProvider('check the payment', () =>
    deps.providerFor(started.livemode).verifyTransaction(started.reference),
  );
  if (!verified || verified.status === 'pending' || verified.status === 'abandoned') {
    // Unknown to the provider (the payer never reached its page) or not finished there.
    await deps.hostedInvoicePayments.markChecked(started.reference, deps.clock.now());
    return 'PENDING';
  }
  if (verified.status === 'failed') {
    await deps.hostedInvoicePayments.settle(started.reference, 'NOT_PAID', deps.clock.now());
    return 'NOT_PAID';
  }
  const applied = await deps.sequelize.transaction(async (transaction) => {
    const payment = await deps.hostedInvoicePayments.lock(started.reference, transaction);
    if (payment?.state === 'PAID' || payment?.state === 'REFUNDED') return { outcome: payment.state, invoice: null };
    const invoice = (await deps.invoices.lock(started.invoiceId, transaction))!;
    const at = await deps.clocks.now(invoice, transaction);
    const recorded = await deps.payments.record(
      refundScopeOf(invoice),
      {
        id: randomUUID(),
        reference: started.reference,
        purpose: 'INVOICE',
        customerId: invoice.customerId,
        invoiceId: invoice.id,
        amount: verified.amount,
        currency: verified.currency,
        status: 'SUCCEEDED',
        gatewayResponse: verified.gatewayResponse,
        providerResponse: { paid_at: verified.paidAt?.toISOString() ?? null },
        createdAt: at,
      },
      transaction,
    );
    const paysTheInvoice =
      invoice.status === 'OPEN' && verified.amount === invoice.amountDue && verified.currency === invoice.currency;
    if (paysTheInvoice) {
      const reference = started.reference;
      await recordInvoicesPaid(deps, [{ invoice, attempt: invoice.attemptCount + 1, reference, at }], transaction);
      if (verified.authorization?.reusable) {
        await deps.authorizations.save(
          invoice.customerId,
          verified.authorization,
          at,
          transaction,
          invoice.subscriptionId,
        );
      }
      await deps.hostedInvoicePayments.settle(started.reference, 'PAID', deps.clock.now(), transaction);
      return { outcome: 'PAID' as const, invoice };
    }
    if (invoice.status === 'PAID') {
      await refundSecondInvoicePayment(deps, { invoice, payment: recorded, at }, transaction);
    } else {
      await refundUnwantedCharge(deps, { payment: recorded, invoice, onInvoice: false, at }, transaction);
    }
    await deps.hostedInvoicePayments.settle(started.reference, 'REFUNDED', deps.clock.now(), transaction);
    return { outcome: 'REFUNDED' as const, invoice };
  });
  if (applied.outcome === 'REFUNDED' && applied.invoice)
    await issuePendingRefunds(deps, applied.invoice.subscriptionId);
  return applied.outcome;
}
