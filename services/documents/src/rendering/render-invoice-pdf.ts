import type { InvoiceDocument } from '../domain/invoice-document';
import { invoiceText } from './document-text';
import { renderPdf } from './pdf-layout';

/**
 * An invoice's PDF (docs/api-behaviour.md §22): the same document gives the same bytes, dated by
 * the invoice's own `created_at`, so a cached copy (pdf-cache.ts) is what a fresh render would
 * give.
 */
export function renderInvoicePdf(invoice: InvoiceDocument): Promise<Buffer> {
  return renderPdf(invoiceText(invoice), { createdAt: new Date(invoice.issued_at), author: invoice.seller.name });
}
