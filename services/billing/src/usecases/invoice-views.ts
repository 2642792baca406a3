import type { Transaction } from 'sequelize';
import { CustomerModel, InvoiceLineModel, type InvoiceModel } from '../db/models';

/** An invoice with its lines and its customer's e-mail: what the invoice API shows. */
export interface InvoiceView {
  invoice: InvoiceModel;
  lines: InvoiceLineModel[];
  customerEmail: string;
}

/** Lines and e-mails of a page of invoices, in two queries. */
export async function invoiceViews(invoices: InvoiceModel[], transaction?: Transaction): Promise<InvoiceView[]> {
  if (invoices.length === 0) return [];
  const lines = await InvoiceLineModel.findAll({
    where: { invoiceId: invoices.map((i) => i.id) },
    order: [['position', 'ASC']],
    transaction,
  });
  const customers = await CustomerModel.findAll({
    where: { id: [...new Set(invoices.map((i) => i.customerId))] },
    attributes: ['id', 'email'],
    transaction,
  });
  const emails = new Map(customers.map((c) => [c.id, c.email]));
  return invoices.map((invoice) => ({
    invoice,
    lines: lines.filter((l) => l.invoiceId === invoice.id),
    customerEmail: emails.get(invoice.customerId) ?? '',
  }));
}

export async function invoiceView(invoice: InvoiceModel, transaction?: Transaction): Promise<InvoiceView> {
  return (await invoiceViews([invoice], transaction))[0];
}
