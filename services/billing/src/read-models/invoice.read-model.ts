import type { Transaction } from 'sequelize';
import type { InvoiceLineModel, InvoiceModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';

/** An invoice with its lines and its customer's e-mail: what the invoice API shows. */
export interface InvoiceView {
  invoice: InvoiceModel;
  lines: InvoiceLineModel[];
  customerEmail: string;
}

/** Lines and e-mails of a page of invoices, in two queries. */
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
  return invoices.map((invoice) => ({
    invoice,
    lines: lines.filter((l) => l.invoiceId === invoice.id),
    customerEmail: emails.get(invoice.customerId) ?? '',
  }));
}

export async function invoiceView(
  deps: BillingDeps,
  invoice: InvoiceModel,
  transaction?: Transaction,
): Promise<InvoiceView> {
  return (await invoiceViews(deps, [invoice], transaction))[0];
}
