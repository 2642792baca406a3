import type { BillingDeps } from '../billing-deps';
import { applyInvoicePayment } from '../usecases/hosted-invoice-payments/apply-invoice-payment.usecase';
import { startInvoicePayment } from '../usecases/hosted-invoice-payments/start-invoice-payment.usecase';
import { getCreditNoteByLink } from '../usecases/invoice-links/get-credit-note-by-link.usecase';
import { getInvoiceByLink } from '../usecases/invoice-links/get-invoice-by-link.usecase';
import { toCreditNote, toInvoice, type BillingHandlers } from './billing-messages';

/**
 * What the documents service asks of billing (docs/api-behaviour.md §22): the documents a link
 * opens, and the hosted page's "Pay". Thin: proto request -> use case -> proto response.
 */
export function documentHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async getInvoiceByLink(req) {
      return { invoice: toInvoice(await getInvoiceByLink(deps, req.token)) };
    },
    async getCreditNoteByLink(req) {
      const { note, invoice } = await getCreditNoteByLink(deps, req.token);
      return { creditNote: toCreditNote(note, deps.documentLinks), invoice: toInvoice(invoice) };
    },
    async startInvoicePayment(req) {
      return { authorizationUrl: await startInvoicePayment(deps, req.token) };
    },
    async applyInvoicePayment(req) {
      const { invoice, outcome } = await applyInvoicePayment(deps, req.token, req.transactionReference);
      return { invoice: toInvoice(invoice), outcome };
    },
  };
}
