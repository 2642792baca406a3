import type { Logger } from '@billing/platform';
import type { BillingDocuments } from './billing/billing-documents';
import type { PdfCache } from './rendering/pdf-cache';

/** What documents' use cases depend on; built once in server.ts. */
export interface DocumentsDeps {
  /** Invoices and credit notes, read from billing (documents keeps no data of its own). */
  documents: BillingDocuments;
  /** PDFs per document state (docs/api-behaviour.md §22). */
  pdfs: PdfCache;
  logger: Logger;
}
