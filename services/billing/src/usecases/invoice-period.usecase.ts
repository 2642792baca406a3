import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel } from '../db/models';
import { invoiceEventData } from '../events/event-payloads';
import type { BillingDeps } from './billing-deps';
import { billUsageForPeriod } from './bill-usage.usecase';
import { createInvoices, invoiceDiscountOf, type InvoiceDraft } from './invoice-money';

/**
 * A period's invoice before its money: OPEN, due `now`, with the plan's SUBSCRIPTION line and
 * the subscription's discount; createInvoices totals it.
 */
export function periodInvoiceDraft(
  subscription: SubscriptionModel,
  period: { start: Date; end: Date },
  now: Date,
  chargeAt: Date | null,
): InvoiceDraft {
  return {
    id: randomUUID(),
    projectId: subscription.projectId,
    livemode: subscription.livemode,
    subscriptionId: subscription.id,
    customerId: subscription.customerId,
    currency: subscription.currency,
    periodStart: period.start,
    periodEnd: period.end,
    createdAt: now,
    collection: { status: 'OPEN', chargeAt },
    discount: invoiceDiscountOf(subscription),
    discountFrom: subscription,
    lines: [
      {
        type: 'SUBSCRIPTION',
        description: subscription.planName,
        quantity: '1',
        unitAmount: subscription.amount,
        amount: subscription.amount,
        periodStart: period.start,
        periodEnd: period.end,
      },
    ],
  };
}

/**
 * Opens the invoice of a subscription's new `period` (docs/api-behaviour.md §8 and 16.6), in the caller's
 * transaction: status OPEN, numbered from the project's counter, due `now`, with
 *  - a SUBSCRIPTION line: the plan price for the new period, billed in advance;
 *  - for a metered plan, the USAGE lines of the period that just ended, one per plan in force
 *    (billed in arrears, usage records marked billed in this same transaction by billUsageForPeriod);
 *  - its money from createInvoices: discount, the customer's balance, amount_due (§19, §20).
 * The subscription's current period is still the ended one when this runs. UNIQUE
 * (subscription_id, period_start) makes a second invoice for the same period impossible.
 * Records invoice.created. Does not charge: chargeInvoice does, after commit. `chargeAt` sets
 * next_payment_attempt in the INSERT itself, for a caller whose scheduler charges it (rather
 * than a second UPDATE of the row just written).
 */
export async function openPeriodInvoice(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  period: { start: Date; end: Date },
  now: Date,
  transaction: Transaction,
  chargeAt: Date | null = null,
): Promise<InvoiceModel> {
  const draft = periodInvoiceDraft(subscription, period, now, chargeAt);
  const ended = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  draft.lines.push(...(await billUsageForPeriod(deps, subscription, ended, draft.id, transaction)));
  const [{ invoice }] = await createInvoices(deps, [draft], transaction);
  await recordEvent(deps.sequelize, transaction, {
    type: 'invoice.created',
    data: invoiceEventData(invoice, await deps.customers.emailOf(subscription.customerId, transaction)),
    projectId: subscription.projectId,
    livemode: subscription.livemode,
    occurredAt: now,
  });
  return invoice;
}
