import { DomainError, type ProjectScope } from '@billing/platform';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { markVoid } from '../../invoicing/mark-void';
import type { InvoiceView } from '../../read-models/invoice.read-model';

/**
 * POST /invoices/{id}/void (docs/api-behaviour.md §11, 16.22): OPEN -> VOID with invoice.voided. Voiding the
 * open invoice of a PAST_DUE subscription forgives that period: the subscription returns to
 * ACTIVE (nextStatus 'invoice_voided') and, with no invoice left to retry, its dunning stops.
 * The catalogue has no event for that return, so invoice.voided (which names the subscription)
 * is the event of both changes, written in the same transaction. Credit the invoice used returns
 * to the customer's balance.
 */
export async function voidInvoice(deps: BillingDeps, scope: ProjectScope, invoiceId: string): Promise<InvoiceView> {
  const found = await deps.invoices.get(scope, invoiceId);
  return deps.sequelize.transaction(async (transaction) => {
    const invoice = (await deps.invoices.lock(found.id, transaction))!;
    if (invoice.status !== 'OPEN') {
      throw new DomainError('failed_precondition', `Only an OPEN invoice can be voided; this one is ${invoice.status}`);
    }
    if (await deps.payments.hasPendingCharge(invoice.id, transaction)) {
      throw new DomainError('failed_precondition', 'A payment of this invoice is in progress; retry shortly');
    }
    const now = await deps.clocks.now(scope, transaction);
    const subscription = await deps.subscriptions.lock(invoice.subscriptionId, transaction);
    if (subscription?.status === 'PAST_DUE') {
      await deps.subscriptions.setStatus(
        subscription,
        nextStatus(subscription.status, 'invoice_voided'),
        now,
        transaction,
      );
    }
    return markVoid(deps, invoice, now, transaction);
  });
}
