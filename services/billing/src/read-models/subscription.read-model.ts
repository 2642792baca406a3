import type { Transaction } from 'sequelize';
import type { InvoiceTax } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import { invoiceTaxesOf } from '../invoicing/invoice-taxes';

/**
 * A subscription with what its views and events need beside its own row: its customer's e-mail
 * (the API's list and detail views, the events' `data`) and the tax its next recurring invoice
 * would apply (its rates and its customer's exemption, docs/api-behaviour.md §21), from which its
 * events' MRR fact takes the inclusive tax out (§25).
 */
export interface SubscriptionView {
  subscription: SubscriptionModel;
  customerEmail: string;
  nextInvoiceTax: InvoiceTax;
}

/**
 * The views of any number of subscriptions (a page of a list, a batch of renewals) in two
 * queries whatever their number: one for their customers, one for their tax rates (none when no
 * subscription has a rate). Every SubscriptionView is built here, so every event of a
 * subscription carries the same figures.
 */
export async function subscriptionViews(
  deps: BillingDeps,
  subscriptions: SubscriptionModel[],
  transaction?: Transaction,
): Promise<SubscriptionView[]> {
  if (subscriptions.length === 0) return [];
  const customers = await deps.customers.emailsAndTaxExemptionsOf(
    [...new Set(subscriptions.map((s) => s.customerId))],
    transaction,
  );
  const exemptions = new Map([...customers].map(([id, customer]) => [id, customer.taxExempt]));
  const taxes = await invoiceTaxesOf(deps, subscriptions, transaction, exemptions);
  return subscriptions.map((subscription) => ({
    subscription,
    customerEmail: customers.get(subscription.customerId)?.email ?? '',
    nextInvoiceTax: taxes.get(subscription.id)!,
  }));
}

/** The view of one subscription (subscriptionViews, a batch of one). */
export async function viewOf(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  transaction?: Transaction,
): Promise<SubscriptionView> {
  const [view] = await subscriptionViews(deps, [subscription], transaction);
  return view;
}
