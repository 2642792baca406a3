import type { ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { viewOf, type SubscriptionView } from '../../read-models/subscription.read-model';

/** One subscription of the scope (404 unknown, 403 another project's). */
export async function getSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
): Promise<SubscriptionView> {
  return viewOf(deps, await deps.subscriptions.get(scope, subscriptionId));
}
