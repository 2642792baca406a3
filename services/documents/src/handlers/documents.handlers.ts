import { requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import type { documentsV1 } from '@billing/proto';
import type { DocumentsDeps } from '../documents-deps';
import { creditNotePdf } from '../usecases/credit-notes/credit-note-pdf.usecase';
import { invoicePdf } from '../usecases/invoices/invoice-pdf.usecase';

/** documents.v1: the PDFs the API serves with an API key. Thin: proto request -> use case -> proto response. */
export function documentsHandlers(deps: DocumentsDeps, logger: Logger): documentsV1.DocumentsServiceServer {
  const handlers: Partial<UnaryHandlers<documentsV1.DocumentsServiceServer>> = {
    async renderInvoicePdf(req) {
      const { pdf, filename } = await invoicePdf(deps, requireScope(req.scope), req.invoiceId);
      return { pdf: { content: pdf, filename } };
    },
    async renderCreditNotePdf(req) {
      const { pdf, filename } = await creditNotePdf(deps, requireScope(req.scope), req.creditNoteId);
      return { pdf: { content: pdf, filename } };
    },
  };
  return unaryService(handlers, logger);
}
