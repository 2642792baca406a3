import type { Transaction } from 'sequelize';
import { recordEvent, type Context, type NewEvent, type ProjectScope } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import { subscriptionEventData } from '../events/event-payloads';
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
 * The one way a subscription.* event (docs/api-behaviour.md §12) is built: the subscription's
 * payload with its customer's e-mail, in the subscription's project and mode. `trace`: the
 * charge a batch records it for (the active trace otherwise).
 */
export function subscriptionEvent(
  view: SubscriptionView,
  type: string,
  occurredAt: Date,
  extra: Record<string, unknown> = {},
  trace?: Context,
): NewEvent<unknown> {
  const { subscription } = view;
  return {
    type,
    data: { ...subscriptionEventData(subscription, view.customerEmail), ...extra },
    projectId: subscription.projectId,
    livemode: subscription.livemode,
    occurredAt,
    ...(trace ? { trace } : {}),
  };
}

/** Records one subscription.* event in the transaction of the change. */
export function recordSubscriptionEvent(
  deps: BillingDeps,
  view: SubscriptionView,
  type: string,
  occurredAt: Date,
  transaction: Transaction,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  return recordEvent(deps.sequelize, transaction, subscriptionEvent(view, type, occurredAt, extra));
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
