import { DomainError } from '@billing/platform';
import type { CreditNoteModel, InvoiceModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';

/**
 * What a document link opens (docs/api-behaviour.md §22): the invoice or credit note its token
 * names, for the hosted page, its "Pay" and the PDFs, which need no API key. Any token that does
 * not open one (malformed, not ours, another kind's, its document gone) is the same 404, which
 * says nothing about any invoice.
 */

const notALink = () => new DomainError('not_found', 'This link is not valid');

export async function invoiceOfLink(deps: BillingDeps, token: string): Promise<InvoiceModel> {
  const id = deps.documentLinks.idOf('invoice', token);
  const invoice = id ? await deps.invoices.find(id) : null;
  if (!invoice) throw notALink();
  return invoice;
}

export async function creditNoteOfLink(deps: BillingDeps, token: string): Promise<CreditNoteModel> {
  const id = deps.documentLinks.idOf('credit_note', token);
  const note = id ? await deps.creditNotes.find(id) : null;
  if (!note) throw notALink();
  return note;
}
