import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { canonicalJson } from '@billing/platform';
import type { CreditNoteDocument, InvoiceDocument } from '../domain/invoice-document';
import { renderCreditNotePdf } from './render-credit-note-pdf';
import { renderInvoicePdf } from './render-invoice-pdf';

export type DocumentKind = 'invoice' | 'credit-note';

/** A document's PDF as a download: its bytes and `<number>.pdf` (docs/api-behaviour.md §22). */
export interface PdfDownload {
  pdf: Buffer;
  filename: string;
}

/**
 * The key of a document's state: a SHA-256 of its kind and its canonical JSON. Everything a
 * document shows is in it, so a change the reader could see (paid, a credit note, another
 * locale) is another key, and one they could not is the same key (docs/api-behaviour.md §22).
 */
export function documentStateKey(kind: DocumentKind, document: InvoiceDocument | CreditNoteDocument): string {
  return createHash('sha256')
    .update(`${kind}\n${canonicalJson(document)}`)
    .digest('hex');
}

export interface PdfCacheOptions {
  /** The most PDF bytes kept; the least recently downloaded go first. */
  maxBytes: number;
}

/**
 * PDFs kept per document state, so a download does not render again (docs/api-behaviour.md §22).
 * For now an LRU in this process's memory: each replica keeps its own, and a restart starts empty,
 * which costs a render and never a wrong answer, since a render of the same state gives the same
 * bytes. A store shared by replicas would also need the renderer's version in the key, so that a
 * new layout is not hidden behind PDFs of the old one; in memory, a deploy starts empty anyway. Two
 * requests for a state not yet kept share one render. The Buffers handed out are the kept ones:
 * callers send them and never write to them.
 */
export class PdfCache {
  private readonly entries: LRUCache<string, Buffer, () => Promise<Buffer>>;

  constructor(options: PdfCacheOptions) {
    this.entries = new LRUCache<string, Buffer, () => Promise<Buffer>>({
      maxSize: options.maxBytes,
      sizeCalculation: (pdf) => Math.max(1, pdf.length),
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  invoicePdf(invoice: InvoiceDocument): Promise<Buffer> {
    return this.get(documentStateKey('invoice', invoice), () => renderInvoicePdf(invoice));
  }

  creditNotePdf(note: CreditNoteDocument): Promise<Buffer> {
    return this.get(documentStateKey('credit-note', note), () => renderCreditNotePdf(note));
  }

  /** The PDF kept under `key`, else `render()`'s, kept. */
  async get(key: string, render: () => Promise<Buffer>): Promise<Buffer> {
    const pdf = await this.entries.fetch(key, { context: render });
    if (pdf === undefined) throw new Error(`rendering the document ${key} gave no PDF`);
    return pdf;
  }

  /** How many PDFs and bytes are kept. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
  }
}
