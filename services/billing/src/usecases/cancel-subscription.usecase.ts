import type { ProjectScope } from '@billing/platform';
import type { CancelledBy } from '../db/models/subscription.model';
import { nextStatus } from '../domain/subscription-status';
import type { BillingDeps } from './billing-deps';
import { changeSubscription, recordSubscriptionEvent, viewOf, type SubscriptionView } from './subscription-views';

export interface CancelSubscriptionCommand {
  subscriptionId: string;
  atPeriodEnd: boolean;
  /** MERCHANT (API) or CUSTOMER (hosted pages); SYSTEM is dunning's. */
  cancelledBy: CancelledBy;
  policyId?: string;
  reason?: string;
}

/**
 * Cancels now (any non-final status -> CANCELLED) or at the end of the current period
 * (`cancel_at_period_end`; the renewal scheduler finishes it and emits subscription.cancelled
 * then). A final subscription -> 400. Refunds of a cancel now come with cancellation policies
 * (contract section 10); until then no refund is issued and `refund` is null.
 */
export function cancelSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  command: CancelSubscriptionCommand,
): Promise<SubscriptionView> {
  const reason = command.reason?.trim() || null;
  return changeSubscription(deps, scope, command.subscriptionId, async (subscription, now, transaction) => {
    if (command.atPeriodEnd) {
      // Checks the status is not final; the change itself happens at the period's end.
      nextStatus(subscription.status, 'period_end_cancel');
      if (subscription.cancelAtPeriodEnd) return;
      await subscription.update(
        { cancelAtPeriodEnd: true, cancellationReason: reason ?? subscription.cancellationReason, updatedAt: now },
        { transaction },
      );
      return;
    }
    await subscription.update(
      {
        status: nextStatus(subscription.status, 'cancel'),
        cancelledAt: now,
        cancelledBy: command.cancelledBy,
        cancelAtPeriodEnd: false,
        cancellationReason: reason ?? subscription.cancellationReason,
        updatedAt: now,
      },
      { transaction },
    );
    const view = await viewOf(subscription, transaction);
    await recordSubscriptionEvent(deps, scope, view, 'subscription.cancelled', now, transaction, { refund: null });
  });
}
