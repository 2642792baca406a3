import type { ProjectScope } from '@billing/platform';
import type { CreditNoteDocument } from '../../domain/invoice-document';
import type { DocumentsDeps } from '../../documents-deps';
import type { PdfDownload } from '../../rendering/pdf-cache';

async function download(deps: DocumentsDeps, note: CreditNoteDocument): Promise<PdfDownload> {
  return { pdf: await deps.pdfs.creditNotePdf(note), filename: `${note.number}.pdf` };
}

/** GET /credit-notes/{id}/pdf (API key; docs/api-behaviour.md §23). */
export async function creditNotePdf(
  deps: DocumentsDeps,
  scope: ProjectScope,
  creditNoteId: string,
): Promise<PdfDownload> {
  return download(deps, await deps.documents.creditNote(scope, creditNoteId));
}

/** `credit_note_pdf`: the same PDF through the note's link (no API key; a wrong token is a 404). */
export async function creditNotePdfOfLink(deps: DocumentsDeps, token: string): Promise<PdfDownload> {
  return download(deps, await deps.documents.creditNoteOfLink(token));
}
