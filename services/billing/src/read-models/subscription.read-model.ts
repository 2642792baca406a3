import type { Transaction } from 'sequelize';
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
