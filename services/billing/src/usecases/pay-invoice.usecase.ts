import { DomainError, findInScope, type ProjectScope } from '@billing/platform';
import { InvoiceModel } from '../db/models';
import { applyChargeOutcome } from './apply-charge-outcome';
import type { BillingDeps } from './billing-deps';
import { chargeInvoice } from './charge-invoice.usecase';
import { invoiceView, type InvoiceView } from './invoice-views';

/**
 * POST /invoices/{id}/pay (contract 11, 16.22): charges an OPEN invoice now. A failed charge is
 * 402 with the provider's words (the invoice stays OPEN, attempt_count + 1); success on a
 * PAST_DUE subscription makes it ACTIVE. Anything but OPEN is a 400.
 */
export async function payInvoice(deps: BillingDeps, scope: ProjectScope, invoiceId: string): Promise<InvoiceView> {
  const found = await findInScope(InvoiceModel, scope, invoiceId, 'Invoice');
  if (found.status !== 'OPEN') {
    throw new DomainError('failed_precondition', `Only an OPEN invoice can be paid; this one is ${found.status}`);
  }
  const result = await chargeInvoice(deps, found.id, {
    onOutcome: (outcome, transaction) => applyChargeOutcome(deps, outcome, transaction),
  });
  if (result.pending) {
    throw new DomainError('unavailable', result.failure ?? 'The outcome of the payment is not known yet; retry later');
  }
  if (!result.paid) {
    if (result.invoice.status !== 'OPEN' && result.invoice.status !== 'UNCOLLECTIBLE') {
      throw new DomainError('failed_precondition', result.failure ?? 'The invoice cannot be paid');
    }
    throw new DomainError('payment_required', result.failure ?? 'The payment failed');
  }
  return invoiceView(result.invoice);
}
