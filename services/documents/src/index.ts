/**
 * The documents service's rendering core (docs/api-behaviour.md §22): what an invoice or credit
 * note shows, its PDF, and the PDFs kept per document state. Reading invoices from billing and
 * serving the pages and PDFs build on this.
 */
export * from './domain/invoice-document';
export * from './domain/display-format';
export * from './rendering/document-text';
export * from './rendering/fonts';
export * from './rendering/render-invoice-pdf';
export * from './rendering/render-credit-note-pdf';
export * from './rendering/pdf-cache';
