import type { Transaction } from 'sequelize';
import type { InvoiceLineModel, InvoiceModel } from '../db/models';
import type { CreditNoteSummary } from '../db/repositories/credit-note.repository';
import type { BillingDeps } from '../billing-deps';

/**
 * An invoice with its lines, its customer's e-mail, its credit notes (their sum is its
 * `amount_credited`, docs/api-behaviour.md §23) and the links of its hosted page and PDF (§22):
 * what the invoice API shows.
 */
export interface InvoiceView {
  invoice: InvoiceModel;
  lines: InvoiceLineModel[];
  customerEmail: string;
  creditNotes: CreditNoteSummary[];
  links: { hostedInvoiceUrl: string; invoicePdf: string };
}

/** Lines, e-mails and credit notes of a page of invoices, in three queries. */
export async function invoiceViews(
  deps: BillingDeps,
  invoices: InvoiceModel[],
  transaction?: Transaction,
): Promise<InvoiceView[]> {
  if (invoices.length === 0) return [];
  const lines = await deps.invoices.linesOfMany(
    invoices.map((i) => i.id),
    transaction,
  );
  const emails = await deps.customers.emailsOf([...new Set(invoices.map((i) => i.customerId))], transaction);
  const creditNotes = await deps.creditNotes.summariesOf(
    invoices.map((i) => i.id),
    transaction,
  );
  return invoices.map((invoice) => ({
    invoice,
    lines: lines.filter((l) => l.invoiceId === invoice.id),
    customerEmail: emails.get(invoice.customerId) ?? '',
    creditNotes: creditNotes.get(invoice.id) ?? [],
    links: {
      hostedInvoiceUrl: deps.documentLinks.invoicePage(invoice.id),
      invoicePdf: deps.documentLinks.invoicePdf(invoice.id),
    },
  }));
}

export async function invoiceView(
  deps: BillingDeps,
  invoice: InvoiceModel,
  transaction?: Transaction,
): Promise<InvoiceView> {
  return (await invoiceViews(deps, [invoice], transaction))[0];
}
