import type { BillingDeps } from '../../billing-deps';
import { applyHostedInvoicePayment } from '../../invoicing/hosted-invoice-payment';

/** Payments asked about in one pass; the rest wait for the next. */
const BATCH = 100;

/**
 * Hosted "Pay"s whose payer never came back (the page closed after paying, the callback lost):
 * each is asked of the provider once it is `olderThanMs` old, and again every `olderThanMs`
 * while the provider has no final word, and applied once it has (applyHostedInvoicePayment), so
 * money taken always pays the invoice or comes back. A provider that cannot be asked leaves the payment for the next pass.
 */
export async function settleHostedInvoicePayments(
  deps: BillingDeps,
  options: { olderThanMs: number },
): Promise<number> {
  const due = await deps.hostedInvoicePayments.dueForCheck(
    new Date(deps.clock.now().getTime() - options.olderThanMs),
    BATCH,
  );
  let settled = 0;
  for (const payment of due) {
    try {
      if ((await applyHostedInvoicePayment(deps, payment)) !== 'PENDING') settled += 1;
    } catch (err) {
      deps.logger.warn({ err, reference: payment.reference }, 'hosted invoice payment not settled; will retry');
      await deps.hostedInvoicePayments.markChecked(payment.reference, deps.clock.now());
    }
  }
  return settled;
}
