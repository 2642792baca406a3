import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, recordEvent } from '@billing/platform';
import type { CreditNoteModel, InvoiceModel, PaymentModel, RefundModel } from '../db/models';
import { balanceCurrencyAfter } from '../domain/customer-balance';
import {
  creditNoteNumber,
  creditNoteRefusal,
  creditNoteTaxes,
  taxSharesOf,
  type CreditNoteRequest,
  type RateAmount,
} from '../domain/credit-notes';
import { creditNoteEvents } from '../events/credit-note.events';
import type { NewRefund } from '../db/repositories/refund.repository';
import type { BillingDeps } from '../billing-deps';
import { taxPerRateOf } from './invoice-taxes';

/**
 * Credit notes (docs/api-behaviour.md §23): what a note of a PAID invoice would be (drafted from
 * the invoice and its earlier notes by the domain's rules), and recording it with where its
 * money went. The merchant's notes (usecases/credit-notes/) and the platform's own refunds (a
 * cancellation's, a charge of a subscription that ended) both come through here, so every note
 * obeys the same limits and numbering.
 */

/** The scope a refund of the invoice is written in (no merchant is acting: as the refund sweep writes it). */
export const refundScopeOf = (invoice: InvoiceModel) => ({
  projectId: invoice.projectId,
  merchantId: '',
  livemode: invoice.livemode,
});

/** A note as it would be issued: its request, number and tax, for `invoice`. */
export interface CreditNoteDraft {
  invoice: InvoiceModel;
  request: CreditNoteRequest;
  number: string;
  tax: RateAmount[];
}

/**
 * The note `request` would make on `invoice`, or the 400 refusing it (creditNoteRefusal; for
 * BALANCE, a balance in another currency than the invoice's, §20). Read under the invoice's row
 * lock when it is to be issued (the caller's `transaction`), so the earlier notes and refunds it
 * counts are the ones the new note joins; without one it is a preview. Refunds still in flight
 * count as refunded: the card never gets back more than it paid.
 */
export async function draftCreditNote(
  deps: BillingDeps,
  invoice: InvoiceModel,
  request: CreditNoteRequest,
  transaction?: Transaction,
): Promise<CreditNoteDraft> {
  const earlier = await deps.creditNotes.earlierOf(invoice.id, transaction);
  const credited = {
    number: invoice.number,
    status: invoice.status,
    currency: invoice.currency,
    amount: invoice.amount,
    amountPaid: invoice.amountPaid,
    amountRefunded: invoice.amountRefunded + (await deps.refunds.amountInFlightForInvoice(invoice.id, transaction)),
    taxes: taxPerRateOf(invoice),
  };
  const refusal = creditNoteRefusal(credited, earlier, request.amount, request.refundTo);
  if (refusal) throw new DomainError('failed_precondition', refusal);
  if (request.refundTo === 'BALANCE') {
    balanceCurrencyAfter((await deps.balances.balanceOf(invoice.customerId, transaction)).currency, invoice.currency);
  }
  return {
    invoice,
    request,
    number: creditNoteNumber(invoice.number, earlier.count),
    tax: creditNoteTaxes(credited, earlier, request.amount),
  };
}

/**
 * Writes the note of `draft` with where its money went (the refund of a CARD note, the balance
 * entry of a BALANCE one) and its credit_note.created, in the caller's transaction.
 * `refundCountedHere`: the refund whose analytics fact the event carries (creditNoteEvents.created).
 */
async function recordCreditNote(
  deps: BillingDeps,
  draft: CreditNoteDraft,
  note: { id: string; at: Date; refundId?: string; balanceTransactionId?: string; creditsSecondPayment?: boolean },
  transaction: Transaction,
  refundCountedHere: RefundModel | null = null,
): Promise<CreditNoteModel> {
  const { invoice, request, number, tax } = draft;
  const created = await deps.creditNotes.create(
    invoice,
    {
      ...request,
      id: note.id,
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      currency: invoice.currency,
      number,
      tax,
      refundId: note.refundId ?? null,
      balanceTransactionId: note.balanceTransactionId ?? null,
      createdAt: note.at,
      creditsSecondPayment: note.creditsSecondPayment,
    },
    transaction,
  );
  await recordEvent(
    deps.sequelize,
    transaction,
    creditNoteEvents.created(created, deps.documentLinks, refundCountedHere),
  );
  return created;
}

/**
 * Issues the merchant's note of `draft`, in the caller's transaction (which holds the invoice's
 * lock): to CARD, a PENDING refund of the charge that paid the invoice (reason CREDIT_NOTE,
 * reference `credit-note:<note id>`), which the caller issues after commit through
 * refund-issuing.ts (claimed, sent once, recorded with the invoice's amount_refunded; the refund
 * sweep finishes it after a crash); to BALANCE, a CREDIT_NOTE entry of the customer's balance.
 * Returns the note and the refund to issue (null for BALANCE).
 */
export async function issueCreditNote(
  deps: BillingDeps,
  draft: CreditNoteDraft,
  note: { id: string; at: Date },
  transaction: Transaction,
): Promise<{ note: CreditNoteModel; refund: RefundModel | null }> {
  const { invoice, request } = draft;
  if (request.refundTo === 'BALANCE') {
    const { customerId, currency, id: invoiceId } = invoice;
    const description = `Credit note ${draft.number}`;
    const credit = { customerId, currency, invoiceId, description, amount: request.amount, at: note.at };
    const entry = await deps.balances.change({ ...credit, type: 'CREDIT_NOTE' }, transaction);
    return {
      note: await recordCreditNote(deps, draft, { ...note, balanceTransactionId: entry.id }, transaction),
      refund: null,
    };
  }
  const payment = await deps.payments.findSucceededForInvoice(invoice.id, transaction);
  // The refusal rules passed, so the card paid something; a paid invoice without its charge is not ours to refund.
  if (!payment) throw new DomainError('failed_precondition', 'No card payment of this invoice can be refunded');
  const refund = await deps.refunds.create(
    refundScopeOf(invoice),
    {
      id: randomUUID(),
      reference: `credit-note:${note.id}`,
      paymentId: payment.id,
      transactionReference: payment.reference,
      invoiceId: invoice.id,
      subscriptionId: invoice.subscriptionId,
      amount: request.amount,
      currency: invoice.currency,
      reason: 'CREDIT_NOTE',
      createdAt: note.at,
      updatedAt: deps.clock.now(),
    },
    transaction,
  );
  // No other event tells of this refund: its note's event carries its analytics fact (§25).
  return { note: await recordCreditNote(deps, draft, { ...note, refundId: refund.id }, transaction, refund), refund };
}

/**
 * A refund the platform decides itself on a paid invoice (a cancellation policy's, a charge of a
 * subscription that ended while it was in flight), written PENDING with its credit note, in the
 * transaction that decides it: ORDER_CHANGE to the card, its refund_id this refund (§23). The
 * note only records the refund, which is issued as every refund is. The note is drafted before
 * the refund is written, so the refund does not count as in flight against itself. The refund's
 * own rules keep it within what the invoice may still credit and refund, so a refusal here is a
 * bug: it fails the change that decided the refund rather than leave a refund without its note.
 */
export async function createRefundWithCreditNote(
  deps: BillingDeps,
  invoice: InvoiceModel,
  refund: NewRefund,
  memo: string,
  transaction: Transaction,
): Promise<RefundModel> {
  const draft = await draftCreditNote(
    deps,
    invoice,
    { amount: refund.amount, reason: 'ORDER_CHANGE', refundTo: 'CARD', memo },
    transaction,
  );
  const row = await deps.refunds.create(refundScopeOf(invoice), refund, transaction);
  // Its analytics fact goes on its refund.processed, once the provider took it (§25), not here.
  await recordCreditNote(deps, draft, { id: randomUUID(), at: refund.createdAt, refundId: row.id }, transaction);
  return row;
}

/**
 * A payment of `invoice` that arrived when another payment had paid it already (a hosted "Pay"
 * in a second tab, a charge racing it; docs/api-behaviour.md §22): given back in full, as a
 * PENDING refund of that payment (reason DUPLICATE_PAYMENT, reference `second-payment:<its
 * reference>`, so it is refunded once whoever records it) with its DUPLICATE credit note, in the
 * transaction that records the payment. The note credits that payment, not the invoice (§23):
 * its tax is that payment's share of the invoice's, and it counts in none of the invoice's limits
 * nor in its `amount_refunded`.
 */
export async function refundSecondInvoicePayment(
  deps: BillingDeps,
  second: { invoice: InvoiceModel; payment: PaymentModel; at: Date },
  transaction: Transaction,
): Promise<RefundModel | null> {
  const { invoice, payment, at } = second;
  const reference = `second-payment:${payment.reference}`;
  if (await deps.refunds.findByReference(reference, transaction)) return null;
  await deps.payments.markSecondPayment(payment, transaction);
  const refund = await deps.refunds.create(
    refundScopeOf(invoice),
    {
      id: randomUUID(),
      reference,
      paymentId: payment.id,
      transactionReference: payment.reference,
      invoiceId: null,
      subscriptionId: invoice.subscriptionId,
      amount: payment.amount,
      currency: payment.currency,
      reason: 'DUPLICATE_PAYMENT',
      createdAt: at,
      updatedAt: deps.clock.now(),
    },
    transaction,
  );
  await recordSecondPaymentNote(deps, { invoice, refund, at }, transaction);
  deps.logger.warn(
    { reference: payment.reference, invoice_id: invoice.id },
    'second payment of a paid invoice; refunded in full with a DUPLICATE credit note',
  );
  return refund;
}

/**
 * The DUPLICATE credit note of `refund`, which gives back a second payment of `invoice` in full
 * (a second "Pay" of its hosted page, or a second payment of the checkout that made it), written
 * in the transaction that decides the refund, under the invoice's lock. It credits that payment,
 * not the invoice (docs/api-behaviour.md §23): its tax is that payment's share of the invoice's,
 * and it counts in none of the invoice's own limits.
 */
export async function recordSecondPaymentNote(
  deps: BillingDeps,
  second: { invoice: InvoiceModel; refund: RefundModel; at: Date },
  transaction: Transaction,
): Promise<CreditNoteModel> {
  const { invoice, refund, at } = second;
  const earlier = await deps.creditNotes.earlierOf(invoice.id, transaction);
  const draft: CreditNoteDraft = {
    invoice,
    request: {
      amount: refund.amount,
      reason: 'DUPLICATE',
      refundTo: 'CARD',
      memo: `Refund of a second payment of invoice ${invoice.number}`,
    },
    number: creditNoteNumber(invoice.number, earlier.count),
    tax: taxSharesOf({ amount: invoice.amount, taxes: taxPerRateOf(invoice) }, refund.amount),
  };
  // No analytics fact (§25): the second payment never counted as the invoice's charge either.
  return recordCreditNote(
    deps,
    draft,
    { id: randomUUID(), at, refundId: refund.id, creditsSecondPayment: true },
    transaction,
  );
}
