import { randomBytes } from 'node:crypto';
import { DomainError } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { invoiceOfLink } from '../../invoicing/invoice-links';
import { callProvider } from '../../provider-call';

/**
 * "Pay" on the hosted invoice page (docs/api-behaviour.md §22): a payment of the OPEN invoice's
 * amount due at the provider's payment page (the sandbox in test mode), recorded as STARTED
 * before the provider hears of it, so that whatever becomes of it is applied once
 * (applyHostedInvoicePayment). Answers where to send the payer. Anything but an OPEN invoice
 * that owes something is a 400: the page shows its status and no "Pay".
 */
export async function startInvoicePayment(deps: BillingDeps, token: string): Promise<string> {
  const invoice = await invoiceOfLink(deps, token);
  if (invoice.status !== 'OPEN' || invoice.amountDue <= 0) {
    throw new DomainError('failed_precondition', `This invoice is ${invoice.status} and owes nothing`);
  }
  // Paystack allows only [A-Za-z0-9.=-] in a reference; 48 random bits tell two tabs apart.
  const reference = `hinv-${invoice.id.replace(/-/g, '')}-${randomBytes(6).toString('hex')}`;
  const email = await deps.customers.emailOf(invoice.customerId);
  await deps.hostedInvoicePayments.recordStart(
    { projectId: invoice.projectId, livemode: invoice.livemode },
    {
      reference,
      invoiceId: invoice.id,
      amount: invoice.amountDue,
      currency: invoice.currency,
      createdAt: deps.clock.now(),
    },
  );
  const started = await callProvider('start the payment', () =>
    deps.providerFor(invoice.livemode).initializeTransaction({
      email,
      amount: invoice.amountDue,
      currency: invoice.currency,
      reference,
      callbackUrl: deps.documentLinks.invoicePaymentCallback(invoice.id),
      // cancel_action: the provider's own "cancel" link brings the payer back to the invoice.
      metadata: { invoice_id: invoice.id, cancel_action: deps.documentLinks.invoicePage(invoice.id) },
    }),
  );
  return started.authorizationUrl;
}
