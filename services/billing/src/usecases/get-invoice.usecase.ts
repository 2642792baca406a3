import { findInScope, type ProjectScope } from '@billing/platform';
import { InvoiceModel } from '../db/models';
import { invoiceView, type InvoiceView } from './invoice-views';

/** GET /invoices/{id}: the whole invoice with its lines (404 unknown, 403 another project's). */
export async function getInvoice(scope: ProjectScope, invoiceId: string): Promise<InvoiceView> {
  return invoiceView(await findInScope(InvoiceModel, scope, invoiceId, 'Invoice'));
}
