import type { Transaction } from 'sequelize';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { countRenewal } from '../../billing-metrics';
import { viewOf } from '../../read-models/subscription.read-model';
import type { ChargeOutcome } from './charges';
import { applyPaidOutcomes } from './invoice-paid';
import { applyPlanChangeOutcome } from './plan-change-outcome';
import { subscriptionEvents } from '../../events/subscription.events';
import type { SubscriptionView } from '../../read-models/subscription.read-model';
import { recordEvent, type NewEvent } from '@billing/platform';

/**
 * The standard consequences of an invoice charge's outcome for its subscription
 * (docs/api-behaviour.md §8), in the transaction that records the outcome, so the status change
 * and its event commit with the payment:
 *  - paid: the "renewed" rule (applyPaidOutcomes, a batch of one);
 *  - failed: TRIALING/ACTIVE -> PAST_DUE + subscription.past_due; PAST_DUE with the dunning
 *    schedule used up (no next attempt) -> CANCELLED by SYSTEM, the invoice UNCOLLECTIBLE,
 *    subscription.cancelled.
 * A PAUSED subscription (a resume in progress) is its caller's to decide; final ones stay. A
 * plan change's invoice applies or drops its change instead (applyPlanChangeOutcome).
 */
export async function applyChargeOutcome(
  deps: BillingDeps,
  outcome: ChargeOutcome,
  transaction: Transaction,
): Promise<void> {
  if (outcome.paid) return applyPaidOutcomes(deps, [outcome], transaction);
  // A plan change's invoice moves its subscription its own way (§18).
  if (outcome.invoice.planChange) return applyPlanChangeOutcome(deps, outcome, transaction);
  const subscription = await deps.subscriptions.lock(outcome.invoice.subscriptionId, transaction);
  if (!subscription) return;
  const { status } = subscription;
  const at = outcome.at;
  const emit = async (event: (view: SubscriptionView, at: Date) => NewEvent<unknown>) =>
    recordEvent(deps.sequelize, transaction, event(await viewOf(deps, subscription, transaction), at));

  if (status === 'TRIALING' || status === 'ACTIVE') {
    const event = status === 'TRIALING' ? 'trial_ended_payment_failed' : 'renewal_failed';
    await deps.subscriptions.setStatus(subscription, nextStatus(status, event), at, transaction);
    await emit(subscriptionEvents.pastDue);
    countRenewal('past_due', subscription.livemode, transaction);
    return;
  }
  if (status === 'PAST_DUE' && outcome.invoice.status === 'OPEN' && outcome.invoice.nextPaymentAttempt === null) {
    await deps.invoices.markUncollectible(outcome.invoice, at, transaction);
    await deps.subscriptions.markCancelled(
      subscription,
      nextStatus(status, 'dunning_exhausted'),
      'SYSTEM',
      at,
      transaction,
    );
    await emit((view, at) => subscriptionEvents.cancelled(view, at, null));
    countRenewal('cancelled_unpaid', subscription.livemode, transaction);
  }
}
