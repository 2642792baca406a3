import type { ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import type { SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { recordMrrRevision } from '../../subscription-changes/record-mrr-revision';

/** `DELETE /subscriptions/{id}/discount`: no discount from the next invoice on. Idempotent. */
export function removeSubscriptionDiscount(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
): Promise<SubscriptionView> {
  return changeSubscription(deps, scope, subscriptionId, async (subscription, now, transaction) => {
    if (!subscription.discountCouponId) return;
    await deps.subscriptions.setDiscount(subscription, null, now, transaction);
    await recordMrrRevision(deps, subscription, now, transaction);
  });
}
