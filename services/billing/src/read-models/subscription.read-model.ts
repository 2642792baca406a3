import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';

/** A subscription with its customer's e-mail: what the API's list and detail views show. */
export interface SubscriptionView {
  subscription: SubscriptionModel;
  customerEmail: string;
}

/** The customers' e-mails of a page of subscriptions, read in one query. */
export async function withCustomerEmails(
  deps: BillingDeps,
  subscriptions: SubscriptionModel[],
  transaction?: Transaction,
): Promise<SubscriptionView[]> {
  const ids = [...new Set(subscriptions.map((s) => s.customerId))];
  const emails = ids.length ? await deps.customers.emailsOf(ids, transaction) : new Map<string, string>();
  return subscriptions.map((subscription) => ({
    subscription,
    customerEmail: emails.get(subscription.customerId) ?? '',
  }));
}

export async function viewOf(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  transaction?: Transaction,
): Promise<SubscriptionView> {
  const [view] = await withCustomerEmails(deps, [subscription], transaction);
  return view;
}

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
