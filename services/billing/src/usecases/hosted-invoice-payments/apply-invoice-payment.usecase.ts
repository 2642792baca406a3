import type { BillingDeps } from '../../billing-deps';
import { applyHostedInvoicePayment, type HostedPaymentOutcome } from '../../invoicing/hosted-invoice-payment';
import { invoiceOfLink } from '../../invoicing/invoice-links';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

/**
 * The provider sent the payer of a hosted "Pay" back (docs/api-behaviour.md §22): the payment is
 * applied once (applyHostedInvoicePayment). A reference this invoice's page did not start
 * (forged, another invoice's) changes nothing: UNKNOWN.
 */
export async function applyInvoicePayment(
  deps: BillingDeps,
  token: string,
  transactionReference: string,
): Promise<{ invoice: InvoiceView; outcome: HostedPaymentOutcome | 'UNKNOWN' }> {
  const invoice = await invoiceOfLink(deps, token);
  const started = transactionReference ? await deps.hostedInvoicePayments.find(transactionReference) : null;
  const outcome =
    started?.invoiceId === invoice.id ? await applyHostedInvoicePayment(deps, started) : ('UNKNOWN' as const);
  const current = await deps.invoices.find(invoice.id);
  return { invoice: await invoiceView(deps, current!), outcome };
}
