import type { ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

/** GET /invoices/{id}: the whole invoice with its lines (404 unknown, 403 another project's). */
export async function getInvoice(deps: BillingDeps, scope: ProjectScope, invoiceId: string): Promise<InvoiceView> {
  return invoiceView(deps, await deps.invoices.get(scope, invoiceId));
}
