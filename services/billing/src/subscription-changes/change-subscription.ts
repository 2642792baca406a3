import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import { viewOf, type SubscriptionView } from '../read-models/subscription.read-model';

/**
 * Runs one change of a subscription of the scope: found in scope first (404/403), then locked
 * for the transaction so concurrent changes of it run one after the other and each sees the
 * status the previous one left. `apply` saves and records its event in that transaction.
 */
export async function changeSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  apply: (subscription: SubscriptionModel, now: Date, transaction: Transaction) => Promise<void>,
): Promise<SubscriptionView> {
  const found = await deps.subscriptions.get(scope, subscriptionId);
  return deps.sequelize.transaction(async (transaction) => {
    const subscription = await deps.subscriptions.lock(found.id, transaction);
    if (!subscription) throw new Error(`subscription ${found.id} vanished`);
    const now = await deps.clocks.now(scope, transaction);
    await apply(subscription, now, transaction);
    return viewOf(deps, subscription, transaction);
  });
}
