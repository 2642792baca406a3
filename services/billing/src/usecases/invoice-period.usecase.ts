import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel } from '../db/models';
import type { NewInvoice } from '../db/repositories/invoice.repository';
import { invoiceEventData } from '../events/event-payloads';
import type { BillingDeps } from './billing-deps';
import { billUsageForPeriod } from './bill-usage.usecase';

/** A period's invoice before numbering: OPEN, due `now`, with the plan's SUBSCRIPTION line. */
export function newPeriodInvoice(
  subscription: SubscriptionModel,
  period: { start: Date; end: Date },
  now: Date,
  chargeAt: Date | null,
): NewInvoice {
  return {
    id: randomUUID(),
    subscriptionId: subscription.id,
    customerId: subscription.customerId,
    status: 'OPEN',
    currency: subscription.currency,
    subtotal: subscription.amount,
    amount: subscription.amount,
    amountPaid: 0,
    periodStart: period.start,
    periodEnd: period.end,
    dueDate: now,
    paidAt: null,
    attemptCount: 0,
    nextPaymentAttempt: chargeAt,
    transactionReference: null,
    createdAt: now,
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
 *  - for a metered plan, the USAGE line of the period that just ended (billed in arrears,
 *    usage records marked billed in this same transaction by billUsageForPeriod).
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
  const scope = { projectId: subscription.projectId, merchantId: '', livemode: subscription.livemode };
  const invoice = await deps.invoices.create(scope, newPeriodInvoice(subscription, period, now, chargeAt), transaction);
  if (subscription.usageUnitAmount !== null && subscription.usageUnitAmount !== undefined) {
    const ended = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
    const usage = await billUsageForPeriod(deps, subscription, ended, invoice, transaction);
    if (usage > 0) {
      await invoice.update(
        { subtotal: invoice.subtotal + usage, amount: invoice.amount + usage, updatedAt: now },
        { transaction },
      );
    }
  }
  await recordEvent(deps.sequelize, transaction, {
    type: 'invoice.created',
    data: invoiceEventData(invoice, await deps.customers.emailOf(subscription.customerId, transaction)),
    projectId: subscription.projectId,
    livemode: subscription.livemode,
    occurredAt: now,
  });
  return invoice;
}
