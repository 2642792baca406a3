import type { Transaction } from 'sequelize';
import { recordEvent, type ProjectScope } from '@billing/platform';
import { CustomerModel, type SubscriptionModel } from '../db/models';
import { subscriptionEventData } from '../events/event-payloads';
import type { BillingDeps } from './billing-deps';

/** A subscription with its customer's e-mail: what the API's list and detail views show. */
export interface SubscriptionView {
  subscription: SubscriptionModel;
  customerEmail: string;
}

/** The customers' e-mails of a page of subscriptions, read in one query. */
export async function withCustomerEmails(
  subscriptions: SubscriptionModel[],
  transaction?: Transaction,
): Promise<SubscriptionView[]> {
  const ids = [...new Set(subscriptions.map((s) => s.customerId))];
  const customers = ids.length
    ? await CustomerModel.findAll({ where: { id: ids }, attributes: ['id', 'email'], transaction })
    : [];
  const emails = new Map(customers.map((c) => [c.id, c.email]));
  return subscriptions.map((subscription) => ({
    subscription,
    customerEmail: emails.get(subscription.customerId) ?? '',
  }));
}

export async function viewOf(subscription: SubscriptionModel, transaction?: Transaction): Promise<SubscriptionView> {
  const [view] = await withCustomerEmails([subscription], transaction);
  return view;
}

/** Records one subscription.* event (docs/api-behaviour.md §12) in the transaction of the change. */
export function recordSubscriptionEvent(
  deps: BillingDeps,
  scope: ProjectScope,
  view: SubscriptionView,
  type: string,
  occurredAt: Date,
  transaction: Transaction,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  return recordEvent(deps.sequelize, transaction, {
    type,
    data: { ...subscriptionEventData(view.subscription, view.customerEmail), ...extra },
    projectId: scope.projectId,
    livemode: scope.livemode,
    occurredAt,
  });
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
    return viewOf(subscription, transaction);
  });
}
