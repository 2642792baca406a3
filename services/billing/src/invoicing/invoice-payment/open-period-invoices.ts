import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { recordEvents } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import { billUsageForPeriod } from '../usage-billing';
import { createInvoices, invoiceDiscountOf, planLineOf, type InvoiceDraft } from '../invoice-money';
import { invoiceTaxesOf } from '../invoice-taxes';
import type { InvoiceTax } from '../../domain/invoice-totals';
import { invoiceEvents } from '../../events/invoice.events';

/** A subscription's new period to open an invoice for. */
export interface PeriodOpening {
  subscription: SubscriptionModel;
  period: { start: Date; end: Date };
  /** Business time of the opening: the invoice's created_at and its event's time. */
  at: Date;
  /**
   * next_payment_attempt, set in the INSERT itself for a caller whose scheduler charges it
   * (rather than a second UPDATE of the row just written); null: its caller charges it.
   */
  chargeAt: Date | null;
}

/**
 * A period's invoice before its money: OPEN, with the plan's SUBSCRIPTION line, the
 * subscription's discount and its tax; createInvoices totals it.
 */
export function periodInvoiceDraft(
  subscription: SubscriptionModel,
  period: { start: Date; end: Date },
  now: Date,
  chargeAt: Date | null,
  tax: InvoiceTax,
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
    tax,
    lines: [planLineOf(subscription, period)],
  };
}

/**
 * Opens the invoices of subscriptions' new periods (docs/api-behaviour.md §8 and 16.6), in the
 * caller's transaction; a single one is a batch of one. Each is OPEN, numbered from its
 * project's counter, with
 *  - a SUBSCRIPTION line: the plan price for the new period, billed in advance;
 *  - for a metered plan (or one that changed plan), the USAGE lines of the period that just
 *    ended, one per plan in force (billed in arrears; usage records marked billed in this same
 *    transaction by billUsageForPeriod, which reads nothing for a plan without usage);
 *  - its money from createInvoices: discount, tax at the subscription's rates as they are now
 *    and its customer's exemption (§21), the customer's balance, amount_due (§19, §20).
 * The subscriptions' current periods are still the ended ones when this runs. UNIQUE
 * (subscription_id, period_start) makes a second invoice for the same period impossible.
 * Records invoice.created for each. Does not charge. However many: one statement per table for
 * the invoices, one for the sellers and buyers (their e-mails the events carry), one for the
 * events, two for the taxes (plus the usage of metered ones).
 */
export async function openPeriodInvoices(
  deps: BillingDeps,
  openings: PeriodOpening[],
  transaction: Transaction,
): Promise<InvoiceModel[]> {
  if (openings.length === 0) return [];
  const drafts: InvoiceDraft[] = [];
  const taxes = await invoiceTaxesOf(
    deps,
    openings.map((o) => o.subscription),
    transaction,
  );
  for (const { subscription, period, at, chargeAt } of openings) {
    const draft = periodInvoiceDraft(subscription, period, at, chargeAt, taxes.get(subscription.id)!);
    const ended = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
    draft.lines.push(...(await billUsageForPeriod(deps, subscription, ended, draft.id, transaction)));
    drafts.push(draft);
  }
  const invoices = (await createInvoices(deps, drafts, transaction)).map((priced) => priced.invoice);
  // The buyer the invoice keeps is its customer as of now: no second read for the e-mails.
  await recordEvents(
    deps.sequelize,
    transaction,
    invoices.map((invoice) => invoiceEvents.created(invoice, invoice.buyer!.email, invoice.createdAt)),
  );
  return invoices;
}

/** One subscription's period invoice: openPeriodInvoices with a batch of one. */
export async function openPeriodInvoice(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  period: { start: Date; end: Date },
  now: Date,
  transaction: Transaction,
  chargeAt: Date | null = null,
): Promise<InvoiceModel> {
  const [invoice] = await openPeriodInvoices(deps, [{ subscription, period, at: now, chargeAt }], transaction);
  return invoice;
}
