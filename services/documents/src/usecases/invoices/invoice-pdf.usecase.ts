import type { ProjectScope } from '@billing/platform';
import type { InvoiceDocument } from '../../domain/invoice-document';
import type { DocumentsDeps } from '../../documents-deps';
import type { PdfDownload } from '../../rendering/pdf-cache';

async function download(deps: DocumentsDeps, invoice: InvoiceDocument): Promise<PdfDownload> {
  return { pdf: await deps.pdfs.invoicePdf(invoice), filename: `${invoice.number}.pdf` };
}

/** GET /invoices/{id}/pdf (API key): the invoice's PDF, kept per state (docs/api-behaviour.md §22). */
export async function invoicePdf(deps: DocumentsDeps, scope: ProjectScope, invoiceId: string): Promise<PdfDownload> {
  return download(deps, await deps.documents.invoice(scope, invoiceId));
}

/** `invoice_pdf`: the same PDF through the invoice's link (no API key; a wrong token is a 404). */
export async function invoicePdfOfLink(deps: DocumentsDeps, token: string): Promise<PdfDownload> {
  return download(deps, (await deps.documents.invoiceOfLink(token)).document);
}
