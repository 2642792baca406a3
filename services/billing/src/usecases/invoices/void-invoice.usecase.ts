import type { Transaction } from 'sequelize';
import { DomainError, recordEvent, type ProjectScope } from '@billing/platform';
import type { InvoiceModel } from '../../db/models';
import { nextStatus } from '../../domain/subscription-status';
import { invoiceEventData } from '../../events/event-payloads';
import type { BillingDeps } from '../../billing-deps';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

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

/**
 * OPEN -> VOID, in the caller's transaction (which holds the invoice's and then its
 * subscription's lock): nothing more is charged for it, the credit it used goes back to the
 * customer's balance (docs/api-behaviour.md §20), and invoice.voided is recorded. Also how a
 * declined plan change's invoice ends (§18).
 */
export async function markVoid(
  deps: BillingDeps,
  invoice: InvoiceModel,
  now: Date,
  transaction: Transaction,
): Promise<InvoiceView> {
  await deps.invoices.markVoid(invoice, now, transaction);
  if (invoice.creditApplied > 0) {
    // Nobody pays a voided invoice, so the credit it used goes back to the customer's balance.
    // After the subscription's lock, in the order renewals take them.
    await deps.balances.change(
      {
        customerId: invoice.customerId,
        type: 'APPLIED_TO_INVOICE',
        amount: invoice.creditApplied,
        currency: invoice.currency,
        description: `Returned by voided invoice ${invoice.number}`,
        invoiceId: invoice.id,
        at: now,
      },
      transaction,
    );
  }
  const view = await invoiceView(deps, invoice, transaction);
  await recordEvent(deps.sequelize, transaction, {
    type: 'invoice.voided',
    data: invoiceEventData(invoice, view.customerEmail),
    projectId: invoice.projectId,
    livemode: invoice.livemode,
    occurredAt: now,
  });
  return view;
}
