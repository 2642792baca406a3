import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { type ProjectScope, recordEvent } from '@billing/platform';
import type { SubscriptionModel } from '../../db/models';
import type { CancelledBy } from '../../db/models/subscription.model';
import { cancellationRefundReference, type RefundView } from '../../domain/cancellation-refund';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { createRefundWithCreditNote } from '../../invoicing/credit-notes';
import { issuePendingRefunds } from '../../invoicing/refund-issuing';
import { quoteCancellationRefund } from '../../subscription-changes/quote-cancellation-refund';
import { refundViewOf } from '../../read-models/refund.read-model';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { subscriptionEvents } from '../../events/subscription.events';

export interface CancelSubscriptionCommand {
  subscriptionId: string;
  atPeriodEnd: boolean;
  /** MERCHANT (API) or CUSTOMER (hosted pages); SYSTEM is dunning's. */
  cancelledBy: CancelledBy;
  /** The cancellation policy to apply; absent = the default (docs/api-behaviour.md §10). */
  policyId?: string;
  reason?: string;
  /** The caller's Idempotency-Key: a retry with it finds this cancel and its refund. */
  idempotencyKey?: string;
}

export interface Cancellation {
  view: SubscriptionView;
  /** What the cancel refunded; null when no policy applies, and always at period end. */
  refund: RefundView | null;
}

/**
 * Cancels now (any non-final status -> CANCELLED) or at the end of the current period
 * (`cancel_at_period_end`; the renewal scheduler finishes it and emits subscription.cancelled
 * then, refunding nothing). A final subscription -> 400, so a subscription is cancelled, and
 * refunded, once.
 *
 * Cancel now applies the cancellation policy (docs/api-behaviour.md §10): in the transaction that holds the
 * subscription's lock, the policy service quotes the refund for this moment; a refund above 0 is
 * written as a PENDING refund row (unique reference per subscription) together with the
 * cancellation and its subscription.cancelled event, then issued after commit through the
 * provider (issuePendingRefunds), which records PROCESSED, the invoice's amount_refunded and
 * refund.processed. The refund's credit note (ORDER_CHANGE, §23) is written with it. A refund of
 * 0 makes no provider call (16.18) and has no note. If policy cannot be reached
 * nothing is cancelled (UNAVAILABLE, safe to retry).
 *
 * With an Idempotency-Key the key is stored, with the refund decided, in the cancel's own
 * transaction under the subscription's lock: a retry that finds it answers the cancel it made
 * (its refund as it stands now) instead of a 400 for a subscription already cancelled.
 */
export async function cancelSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CancelSubscriptionCommand,
): Promise<Cancellation> {
  const decided: { refund: RefundView | null; earlier?: boolean } = { refund: null };
  const key = command.idempotencyKey && ({ operation: 'cancel_subscription', key: command.idempotencyKey } as const);
  const view = await changeSubscription(deps, scope, command.subscriptionId, async (subscription, now, transaction) => {
    if (key) {
      const keyed = await deps.idempotencyKeys.claim(
        scope,
        {
          ...key,
          fingerprint: `${subscription.id}:${command.atPeriodEnd}:${command.policyId ?? ''}`,
          resource: { refund: null as RefundView | null },
        },
        deps.clock.now(),
        transaction,
      );
      if (!keyed.fresh) {
        decided.earlier = true;
        decided.refund = keyed.resource.refund;
        return;
      }
    }
    decided.refund = await applyCancel(deps, scope, command, subscription, now, transaction);
    if (key) await deps.idempotencyKeys.attach(scope, key, { refund: decided.refund }, transaction);
  });

  const refundId = decided.refund?.id;
  if (decided.earlier) {
    // The earlier cancel's refund as it stands now; its issuing is the refund workers' (or the first request's).
    const stored = refundId ? await deps.refunds.findById(refundId) : null;
    return { view, refund: stored ? refundViewOf(stored) : decided.refund };
  }
  if (!refundId) return { view, refund: decided.refund };
  // After commit: a provider call cannot be rolled back with a transaction.
  await issuePendingRefunds(deps, view.subscription.id);
  const issued = await deps.refunds.findById(refundId);
  return { view, refund: issued ? refundViewOf(issued) : decided.refund };
}

/** The cancel itself, in the transaction holding the subscription's lock; returns its refund. */
async function applyCancel(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CancelSubscriptionCommand,
  subscription: SubscriptionModel,
  now: Date,
  transaction: Transaction,
): Promise<RefundView | null> {
  const reason = command.reason?.trim() || null;
  if (command.atPeriodEnd) {
    // Checks the status is not final; the change itself happens at the period's end.
    nextStatus(subscription.status, 'period_end_cancel');
    if (subscription.cancelAtPeriodEnd) return null;
    await deps.subscriptions.scheduleCancel(subscription, reason ?? subscription.cancellationReason, now, transaction);
    return null;
  }
  // A final subscription is refused before any refund is considered.
  const status = nextStatus(subscription.status, 'cancel');
  const refund = await decideRefund(deps, scope, subscription, command.policyId, now, transaction);
  await deps.subscriptions.cancelNow(
    subscription,
    { status, by: command.cancelledBy, reason: reason ?? subscription.cancellationReason },
    now,
    transaction,
  );
  const view = await viewOf(deps, subscription, transaction);
  await recordEvent(deps.sequelize, transaction, subscriptionEvents.cancelled(view, now, refund));
  return refund;
}

/**
 * The refund of this cancel-now: none (no policy applies), 0 (PROCESSED, nothing to send), or
 * a PENDING refund row of the charge that paid the current period.
 */
async function decideRefund(
  deps: BillingDeps,
  scope: ProjectScope,
  subscription: SubscriptionModel,
  policyId: string | undefined,
  now: Date,
  transaction: Transaction,
): Promise<RefundView | null> {
  const { refund, payment, invoice } = await quoteCancellationRefund(deps, scope, subscription, {
    policyId,
    now,
    transaction,
  });
  if (!refund) return null;
  if (!payment || !invoice) return { ...refund, status: 'PROCESSED' };
  // Every refund has its credit note (docs/api-behaviour.md §23): this one's, ORDER_CHANGE, in this transaction.
  const row = await createRefundWithCreditNote(
    deps,
    invoice,
    {
      id: randomUUID(),
      reference: cancellationRefundReference(subscription.id),
      paymentId: payment.id,
      transactionReference: payment.reference,
      invoiceId: refund.invoiceId,
      subscriptionId: subscription.id,
      amount: refund.amount,
      currency: refund.currency,
      reason: 'CANCELLATION',
      policyId: refund.policyId,
      createdAt: now,
      updatedAt: deps.clock.now(),
    },
    `Refund of the cancellation of subscription ${subscription.id}`,
    transaction,
  );
  return refundViewOf(row);
}
