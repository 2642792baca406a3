import type { InvoicePaymentFact } from '@billing/analytics';
import { taxAmountView, toMajorUnits, type Context, type NewEvent } from '@billing/platform';
import type { InvoiceModel } from '../db/models';

/**
 * The one place invoice.* events are built (docs/api-behaviour.md §12): each event type of the
 * resource has its builder here, and the lint rule in eslint.config.js refuses an event type
 * written anywhere else in the service. `data` is what merchants receive in webhooks: snake_case,
 * money in major units, ISO timestamps. Recording stays with the caller, in the transaction of
 * the change (recordEvent / recordEvents of @billing/platform).
 */

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * invoice.*: the invoice.paid shape of docs/api-behaviour.md §0 + subscription_id, customer_id,
 * the money of §20 (discount, credit_applied, amount_due) and the tax of §21 (tax,
 * total_excluding_tax, total_tax_amounts, tax_note), as the invoice resource shows them.
 */
export const invoiceEventData = (invoice: InvoiceModel, customerEmail: string) => ({
  id: invoice.id,
  amount: toMajorUnits(invoice.amount),
  discount: toMajorUnits(invoice.discount),
  tax: toMajorUnits(invoice.tax),
  total_excluding_tax: toMajorUnits(invoice.totalExcludingTax),
  total_tax_amounts: invoice.totalTaxAmounts.map(taxAmountView),
  tax_note: invoice.taxNote,
  credit_applied: toMajorUnits(invoice.creditApplied),
  amount_due: toMajorUnits(invoice.amountDue),
  currency: invoice.currency,
  customer_email: customerEmail,
  status: invoice.status,
  paid_at: iso(invoice.paidAt),
  subscription_id: invoice.subscriptionId,
  customer_id: invoice.customerId,
});

/** `trace`: the charge a batch records the event for (the active trace otherwise). */
function invoiceEvent(
  type: string,
  invoice: InvoiceModel,
  customerEmail: string,
  occurredAt: Date,
  extra: Record<string, unknown> = {},
  trace?: Context,
): NewEvent<unknown> {
  return {
    type,
    data: { ...invoiceEventData(invoice, customerEmail), ...extra },
    projectId: invoice.projectId,
    livemode: invoice.livemode,
    occurredAt,
    ...(trace ? { trace } : {}),
  };
}

/**
 * invoice.paid's analytics fact (docs/api-behaviour.md §25), on the envelope, never in `data`:
 * `charged` is the invoice's amount_paid, what the card paid for it (amount_due once PAID, §20:
 * the customer's balance is not a charge, so an invoice the balance paid in full charged 0), and
 * `tax` the invoice's tax (§21), counted in the month it was paid.
 */
const invoicePaymentFact = (invoice: InvoiceModel): InvoicePaymentFact => ({
  kind: 'invoice_payment',
  invoice_id: invoice.id,
  customer_id: invoice.customerId,
  currency: invoice.currency,
  charged: invoice.amountPaid,
  tax: invoice.tax,
});

export const invoiceEvents = {
  created: (invoice: InvoiceModel, customerEmail: string, at: Date) =>
    invoiceEvent('invoice.created', invoice, customerEmail, at),
  /** Built once the invoice is PAID (its amount_paid set). */
  paid: (invoice: InvoiceModel, customerEmail: string, at: Date, trace?: Context): NewEvent<unknown> => ({
    ...invoiceEvent('invoice.paid', invoice, customerEmail, at, {}, trace),
    analytics: invoicePaymentFact(invoice),
  }),
  /** `failure`: the provider's words for the declined charge. */
  paymentFailed: (
    invoice: InvoiceModel,
    customerEmail: string,
    at: Date,
    failure: string | undefined,
    trace?: Context,
  ) => invoiceEvent('invoice.payment_failed', invoice, customerEmail, at, { failure }, trace),
  voided: (invoice: InvoiceModel, customerEmail: string, at: Date) =>
    invoiceEvent('invoice.voided', invoice, customerEmail, at),
};
