import type { Transaction } from 'sequelize';
import { recordEvents, type Context, type NewEvent } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel } from '../../db/models';
import { afterInvoicePaid } from '../../domain/billing-step';
import { hasEnded, nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { countRenewal } from '../../billing-metrics';
import type { InvoicePayment, OutcomeConsequences } from './charges';
import { applyPlanChangeOutcome } from './plan-change-outcome';
import { refundChargeOfEndedSubscription } from './unwanted-charge-refund';
import { invoiceEvents } from '../../events/invoice.events';
import { subscriptionEvents } from '../../events/subscription.events';
import { subscriptionViews } from '../../read-models/subscription.read-model';

/**
 * THE "invoice paid" rule, for any number of invoices (a single one is a batch of one): OPEN ->
 * PAID, amount_paid = amount_due, paid_at, attempt_count, off the schedule, the charge's
 * reference (InvoiceRepository.markPaidMany, one UPDATE), and invoice.paid for each (one INSERT),
 * then its subscription's consequences: the standard ones (applyPaidOutcomes, batched) unless
 * the caller decides them (`consequences`, one by one: a resume of a pause). Every way an invoice
 * gets paid comes here: a charge's success (recordSuccessfulCharges), nothing left to charge
 * (claimInvoiceCharges). An invoice closed meanwhile (voided) is left as it is. Returns the ones
 * it paid, in input order.
 */
export async function recordInvoicesPaid(
  deps: BillingDeps,
  payments: InvoicePayment[],
  transaction: Transaction,
  consequences?: OutcomeConsequences,
): Promise<InvoicePayment[]> {
  if (payments.length === 0) return [];
  const changed = await deps.invoices.markPaidMany(payments, transaction);
  const paid = payments.filter((p) => changed.has(p.invoice.id));
  const unknown = [...new Set(paid.filter((p) => p.email === undefined).map((p) => p.invoice.customerId))];
  const emails = unknown.length ? await deps.customers.emailsOf(unknown, transaction) : new Map<string, string>();
  const emailOf = (p: InvoicePayment) => p.email ?? emails.get(p.invoice.customerId) ?? '';
  const paidEvents = paid.map((p) => invoiceEvents.paid(p.invoice, emailOf(p), p.at, p.trace));
  if (consequences) {
    await recordEvents(deps.sequelize, transaction, paidEvents);
    for (const { invoice, at } of paid) await consequences({ paid: true, invoice, at }, transaction);
  } else {
    // invoice.paid goes into the same INSERT as the renewals' events, ahead of them.
    await applyPaidOutcomes(deps, paid, transaction, paidEvents);
  }
  return paid;
}

/**
 * THE "renewed" rule: what paid invoices do to their subscriptions (docs/api-behaviour.md §8), in
 * the transaction that records the payments, so the status change and its event commit with
 * them. A trial's first charge -> ACTIVE; a retry on PAST_DUE -> ACTIVE; a renewal of an ACTIVE
 * subscription keeps it ACTIVE (afterInvoicePaid); each that began a paid period records
 * subscription.renewed and counts a renewal. A plan change's invoice applies its change instead
 * (§18, applyPlanChangeOutcome). A subscription that ended while the charge was in flight
 * (cancel now) keeps nothing: the charge is refunded in full (§10). Subscriptions are locked in
 * id order (two batches never lock crosswise); one UPDATE per status that changes, one INSERT for the events, with
 * `earlierEvents` (the batch's invoice.paid) ahead of them.
 */
export async function applyPaidOutcomes(
  deps: BillingDeps,
  paid: { invoice: InvoiceModel; at: Date; trace?: Context }[],
  transaction: Transaction,
  earlierEvents: NewEvent<unknown>[] = [],
): Promise<void> {
  const renewals: typeof paid = [];
  // A plan change's consequences record their own events: what came before them goes first.
  if (paid.some((p) => p.invoice.planChange)) await recordEvents(deps.sequelize, transaction, earlierEvents.splice(0));
  for (const p of paid) {
    if (p.invoice.planChange) {
      await applyPlanChangeOutcome(deps, { paid: true, invoice: p.invoice, at: p.at }, transaction);
    } else renewals.push(p);
  }
  if (renewals.length === 0) {
    await recordEvents(deps.sequelize, transaction, earlierEvents);
    return;
  }
  const subscriptions = await deps.subscriptions.lockMany(
    [...new Set(renewals.map((p) => p.invoice.subscriptionId))],
    transaction,
  );
  const byId = new Map(subscriptions.map((s) => [s.id, s]));
  const renewed: { subscription: SubscriptionModel; at: Date; trace?: Context }[] = [];
  for (const { invoice, at, trace } of renewals) {
    const subscription = byId.get(invoice.subscriptionId);
    if (!subscription) continue;
    if (hasEnded(subscription.status)) {
      // Cancelled now (or ended) while this charge was in flight: none of it is kept (§10).
      await refundChargeOfEndedSubscription(deps, invoice, at, transaction);
      continue;
    }
    const afterPaid = afterInvoicePaid(subscription.status);
    if (afterPaid.event) {
      await deps.subscriptions.setStatus(
        subscription,
        nextStatus(subscription.status, afterPaid.event),
        at,
        transaction,
      );
    }
    if (afterPaid.renewed) {
      countRenewal('renewed', subscription.livemode, transaction);
      renewed.push({ subscription, at, trace });
    }
  }
  // The batch's views in two queries (its customers, its tax rates), for the events' MRR facts.
  const views = await subscriptionViews(
    deps,
    renewed.map((r) => r.subscription),
    transaction,
  );
  const events: NewEvent<unknown>[] = [
    ...earlierEvents,
    ...renewed.map(({ at, trace }, k) => subscriptionEvents.renewed(views[k], at, trace)),
  ];
  await recordEvents(deps.sequelize, transaction, events);
}
