import type { InvoicePageData } from '../../billing/billing-documents';
import type { DocumentsDeps } from '../../documents-deps';

/** The hosted invoice page of a link (docs/api-behaviour.md §22); billing answers 404 for a wrong token. */
export function showInvoicePage(deps: DocumentsDeps, token: string): Promise<InvoicePageData> {
  return deps.documents.invoiceOfLink(token);
}
