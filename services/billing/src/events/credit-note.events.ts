import { toMajorUnits, type NewEvent } from '@billing/platform';
import type { CreditNoteModel, RefundModel } from '../db/models';
import type { DocumentLinks } from '../domain/document-links';
import { refundFact } from './refund.events';

/**
 * The one place credit_note.* events are built (docs/api-behaviour.md §12, §23): each event type
 * of the resource has its builder here, and the lint rule in eslint.config.js refuses an event
 * type written anywhere else in the service. `data` is what merchants receive in webhooks:
 * snake_case, money in major units, ISO timestamps. Recording stays with the caller, in the
 * transaction of the change (recordEvent / recordEvents of @billing/platform).
 */

/** The credit note resource of docs/api-behaviour.md §23, as GET /credit-notes/{id} answers it. */
export const creditNoteEventData = (note: CreditNoteModel, links: DocumentLinks) => ({
  id: note.id,
  number: note.number,
  invoice_id: note.invoiceId,
  customer_id: note.customerId,
  amount: toMajorUnits(note.amount),
  currency: note.currency,
  tax: note.tax.map((t) => ({ tax_rate_id: t.tax_rate_id, amount: toMajorUnits(t.amount) })),
  reason: note.reason,
  refund_to: note.refundTo,
  refund_id: note.refundId,
  balance_transaction_id: note.balanceTransactionId,
  memo: note.memo,
  status: note.status,
  credit_note_pdf: links.creditNotePdf(note.id),
  livemode: note.livemode,
  created_at: note.createdAt.toISOString(),
});

export const creditNoteEvents = {
  /**
   * A note was issued: by the merchant, or by a refund the platform made itself (§23).
   * `refundCountedHere`: the refund whose analytics fact this event carries (refundFact), given
   * for a merchant's note to the card only; a cancellation refund's fact goes on its
   * refund.processed and a second payment's refund has none, so their notes carry none.
   */
  created: (note: CreditNoteModel, links: DocumentLinks, refundCountedHere: RefundModel | null): NewEvent<unknown> => ({
    type: 'credit_note.created',
    data: creditNoteEventData(note, links),
    projectId: note.projectId,
    livemode: note.livemode,
    occurredAt: note.createdAt,
    ...(refundCountedHere ? { analytics: refundFact(refundCountedHere) } : {}),
  }),
};
