import { requireScope } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { getCreditNote } from '../usecases/credit-notes/get-credit-note.usecase';
import { issueCreditNote } from '../usecases/credit-notes/issue-credit-note.usecase';
import { listCreditNotes } from '../usecases/credit-notes/list-credit-notes.usecase';
import { previewCreditNote } from '../usecases/credit-notes/preview-credit-note.usecase';
import { toCreditNote, toCreditNoteTax, type BillingHandlers } from './billing-messages';

/** Credit notes (docs/api-behaviour.md §23). Thin: proto request -> use case -> proto response. */
export function creditNoteHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async issueCreditNote(req) {
      const note = await issueCreditNote(deps, requireScope(req.scope), {
        invoiceId: req.invoiceId,
        amount: req.amount,
        reason: req.reason,
        refundTo: req.refundTo,
        memo: req.memo,
        idempotencyKey: req.idempotencyKey || undefined,
      });
      return { creditNote: toCreditNote(note, deps.documentLinks) };
    },
    async previewCreditNote(req) {
      const draft = await previewCreditNote(deps, requireScope(req.scope), {
        invoiceId: req.invoiceId,
        amount: req.amount,
        reason: req.reason,
        refundTo: req.refundTo,
        memo: req.memo,
      });
      return {
        amount: draft.request.amount,
        currency: draft.invoice.currency,
        tax: toCreditNoteTax(draft.tax),
        reason: draft.request.reason,
        refundTo: draft.request.refundTo,
        memo: draft.request.memo ?? undefined,
      };
    },
    async listCreditNotes(req) {
      const notes = await listCreditNotes(
        deps,
        requireScope(req.scope),
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        { invoiceId: req.invoiceId, customerId: req.customerId },
      );
      return { creditNotes: notes.map((note) => toCreditNote(note, deps.documentLinks)) };
    },
    async getCreditNote(req) {
      const note = await getCreditNote(deps, requireScope(req.scope), req.creditNoteId);
      return { creditNote: toCreditNote(note, deps.documentLinks) };
    },
  };
}
