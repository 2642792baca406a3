import { type ProjectScope, recordEvent } from '@billing/platform';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { subscriptionEvents } from '../../events/subscription.events';

/**
 * ACTIVE/TRIALING -> PAUSED (400 in any other state). Nothing is invoiced while paused: the
 * renewal scheduler skips PAUSED subscriptions, and resuming starts a new period.
 */
export function pauseSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
): Promise<SubscriptionView> {
  return changeSubscription(deps, scope, subscriptionId, async (subscription, now, transaction) => {
    await deps.subscriptions.pause(subscription, nextStatus(subscription.status, 'pause'), now, transaction);
    const view = await viewOf(deps, subscription, transaction);
    await recordEvent(deps.sequelize, transaction, subscriptionEvents.paused(view, now));
  });
}
