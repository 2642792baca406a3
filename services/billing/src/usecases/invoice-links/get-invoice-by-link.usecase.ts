import type { BillingDeps } from '../../billing-deps';
import { invoiceOfLink } from '../../invoicing/invoice-links';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

/** The invoice of a hosted page or PDF link (docs/api-behaviour.md §22); 404 for any other token. */
export async function getInvoiceByLink(deps: BillingDeps, token: string): Promise<InvoiceView> {
  return invoiceView(deps, await invoiceOfLink(deps, token));
}
