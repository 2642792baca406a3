import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { InvoiceModel } from '../db/models';
import { invoiceEvents } from '../events/invoice.events';
import type { BillingDeps } from '../billing-deps';
import { invoiceView, type InvoiceView } from '../read-models/invoice.read-model';

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
  await recordEvent(deps.sequelize, transaction, invoiceEvents.voided(invoice, view.customerEmail, now));
  return view;
}
