import type { Transaction } from 'sequelize';
import { type ProjectScope, recordEvent } from '@billing/platform';
import type { SubscriptionModel } from '../../db/models';
import { periodAt } from '../../domain/periods';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { chargeInvoice, openPeriodInvoice, type ChargeOutcome } from '../../invoicing/invoice-payment';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { subscriptionEvents } from '../../events/subscription.events';

/**
 * PAUSED -> a new period starts at resume time (the new billing anchor) and is charged at once
 * (docs/api-behaviour.md §8): ACTIVE + subscription.resumed when the charge succeeds, PAST_DUE +
 * subscription.past_due when it fails (dunning then retries the OPEN invoice); both answer with
 * the subscription. Any other state -> 400.
 *
 * One transaction opens the period's invoice and moves the subscription onto the new period
 * (still PAUSED); chargeInvoice then charges it and applies the outcome's status in the
 * transaction that records the outcome. A resume interrupted between the two (crash, unknown
 * provider outcome) is found by the invoice it opened (current period, created during this
 * pause): resuming again charges that invoice if still OPEN, or completes the resume if
 * settlement found it PAID, instead of opening and charging another period.
 */
export async function resumeSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
): Promise<SubscriptionView> {
  let invoiceId: string | null = null;
  let at = new Date(0);
  await changeSubscription(deps, scope, subscriptionId, async (subscription, now, transaction) => {
    nextStatus(subscription.status, 'resume_paid'); // 400 unless PAUSED
    at = now;
    const interrupted = await interruptedResumeInvoice(deps, subscription, transaction);
    if (interrupted?.status === 'PAID') {
      // Settled after the interrupted resume lost the provider's answer: finish that resume.
      await applyOutcome(deps, subscription.id, { paid: true, invoice: interrupted, at: now }, transaction);
      return;
    }
    if (interrupted) {
      invoiceId = interrupted.id;
      return;
    }
    const period = periodAt(now, subscription.interval, subscription.intervalCount, 0);
    // Opened while the subscription still holds the ended period: its usage is billed on it.
    const invoice = await openPeriodInvoice(deps, subscription, period, now, transaction);
    await deps.subscriptions.restartBilling(subscription, period, now, transaction);
    invoiceId = invoice.id;
  });

  if (invoiceId) {
    await chargeInvoice(deps, invoiceId, {
      at,
      consequences: (outcome, transaction) => applyOutcome(deps, subscriptionId, outcome, transaction),
    });
  }
  return viewOf(deps, await deps.subscriptions.get(scope, subscriptionId));
}

/**
 * The invoice an earlier resume of this pause opened for the current period (created after the
 * pause began), if that resume was interrupted before its outcome moved the subscription.
 */
function interruptedResumeInvoice(deps: BillingDeps, subscription: SubscriptionModel, transaction: Transaction) {
  if (!subscription.pausedAt) return Promise.resolve(null);
  return deps.invoices.findOpenedSince(
    subscription.id,
    subscription.currentPeriodStart,
    subscription.pausedAt,
    transaction,
  );
}

async function applyOutcome(
  deps: BillingDeps,
  subscriptionId: string,
  outcome: ChargeOutcome,
  transaction: Transaction,
): Promise<void> {
  const subscription = (await deps.subscriptions.lock(subscriptionId, transaction)) as SubscriptionModel;
  // Cancelled meanwhile: the charge outcome no longer moves it.
  if (subscription.status !== 'PAUSED') return;
  const status = nextStatus(subscription.status, outcome.paid ? 'resume_paid' : 'resume_failed');
  await deps.subscriptions.endPause(subscription, status, outcome.at, transaction);
  const view = await viewOf(deps, subscription, transaction);
  const event = outcome.paid ? subscriptionEvents.resumed : subscriptionEvents.pastDue;
  await recordEvent(deps.sequelize, transaction, event(view, outcome.at));
}
