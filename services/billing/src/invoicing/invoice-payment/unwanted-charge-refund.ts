import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { InvoiceModel, PaymentModel } from '../../db/models';
import type { NewRefund } from '../../db/repositories/refund.repository';
import type { BillingDeps } from '../../billing-deps';
import { createRefundWithCreditNote, refundScopeOf } from '../credit-notes';

/**
 * The charge that paid `invoice` of a subscription that ended (cancelled now) while it was in
 * flight: refunded in full, recorded on the invoice (refundUnwantedCharge).
 */
export async function refundChargeOfEndedSubscription(
  deps: BillingDeps,
  invoice: InvoiceModel,
  at: Date,
  transaction: Transaction,
): Promise<void> {
  const payment = await deps.payments.findSucceededForInvoice(invoice.id, transaction);
  if (payment) await refundUnwantedCharge(deps, { payment, invoice, onInvoice: true, at }, transaction);
}

/**
 * A charge that succeeded after what it paid for ended: its subscription was cancelled now (or
 * ended) while the charge was in flight, or its invoice was closed (voided, written off)
 * meanwhile. The platform keeps no such money (docs/api-behaviour.md §10): a full refund of the
 * charge is decided here, in the transaction that records the success, as a PENDING refund the
 * refund sweep issues exactly once (docs/payment-recovery.md). Its reference is the charge's, so
 * one charge is refunded at most once whoever records it.
 * `onInvoice`: the refund is recorded on the invoice (amount_refunded) when the invoice was paid
 * by this charge; a closed invoice collected nothing, so it is not.
 */
export async function refundUnwantedCharge(
  deps: BillingDeps,
  charge: { payment: PaymentModel; invoice: InvoiceModel; onInvoice: boolean; at: Date },
  transaction: Transaction,
): Promise<void> {
  const { payment, invoice, at } = charge;
  const reference = `unwanted:${payment.reference}`;
  if (await deps.refunds.findByReference(reference, transaction)) return;
  const refund: NewRefund = {
    id: randomUUID(),
    reference,
    paymentId: payment.id,
    transactionReference: payment.reference,
    invoiceId: charge.onInvoice ? invoice.id : null,
    subscriptionId: invoice.subscriptionId,
    amount: payment.amount,
    currency: payment.currency,
    reason: 'CANCELLATION',
    createdAt: at,
    updatedAt: at,
  };
  if (charge.onInvoice) {
    // Paid by this charge, so the refund gives back part of a PAID invoice: its credit note
    // (ORDER_CHANGE, docs/api-behaviour.md §23) is written with it.
    const memo = `Refund of a charge that landed after subscription ${invoice.subscriptionId} ended`;
    await createRefundWithCreditNote(deps, invoice, refund, memo, transaction);
  } else {
    // A closed invoice (VOID, UNCOLLECTIBLE) collected nothing: the refund is of no invoice, and
    // has no note (§23).
    await deps.refunds.create(refundScopeOf(invoice), refund, transaction);
  }
  deps.logger.warn(
    { reference: payment.reference, invoice_id: invoice.id, subscription_id: invoice.subscriptionId },
    'charge succeeded after its subscription or invoice ended; refunded in full',
  );
}
