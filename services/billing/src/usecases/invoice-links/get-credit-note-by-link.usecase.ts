import type { CreditNoteModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import { creditNoteOfLink } from '../../invoicing/invoice-links';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

/**
 * The credit note of a PDF link, with the invoice it credits (its parties, number and tax names
 * are the note's; docs/api-behaviour.md §23); 404 for any other token.
 */
export async function getCreditNoteByLink(
  deps: BillingDeps,
  token: string,
): Promise<{ note: CreditNoteModel; invoice: InvoiceView }> {
  const note = await creditNoteOfLink(deps, token);
  const invoice = await deps.invoices.find(note.invoiceId);
  return { note, invoice: await invoiceView(deps, invoice!) };
}
