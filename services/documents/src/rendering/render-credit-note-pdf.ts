import type { CreditNoteDocument } from '../domain/invoice-document';
import { creditNoteText } from './document-text';
import { renderPdf } from './pdf-layout';

/**
 * A credit note's PDF (docs/api-behaviour.md §22), dated by the note's own `created_at`, like an
 * invoice's.
 */
export function renderCreditNotePdf(note: CreditNoteDocument): Promise<Buffer> {
  return renderPdf(creditNoteText(note), { createdAt: new Date(note.issued_at), author: note.seller.name });
}
