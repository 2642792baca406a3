import { toMajorUnits } from '@billing/platform';
import type { CustomerModel, InvoiceModel, SubscriptionModel } from '../db/models';
import type { RefundView } from '../domain/cancellation-refund';

/**
 * The `data` of billing's events (docs/api-behaviour.md §12), as merchants receive it in webhooks:
 * snake_case, money in major units, ISO timestamps.
 */

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** customer.created: the Customer resource. */
export const customerEventData = (customer: CustomerModel) => ({
  id: customer.id,
  email: customer.email,
  name: customer.name,
  gateway_customer_id: customer.gatewayCustomerId,
  metadata: customer.metadata,
  balance: toMajorUnits(customer.balance),
  balance_currency: customer.balanceCurrency ?? null,
  livemode: customer.livemode,
  created_at: customer.createdAt.toISOString(),
});

/** subscription.*: the subscription list view + customer_id, plan_id. */
export const subscriptionEventData = (subscription: SubscriptionModel, customerEmail: string) => ({
  id: subscription.id,
  customer_email: customerEmail,
  plan_name: subscription.planName,
  status: subscription.status,
  amount: toMajorUnits(subscription.amount),
  currency: subscription.currency,
  interval: subscription.interval,
  current_period_start: subscription.currentPeriodStart.toISOString(),
  current_period_end: subscription.currentPeriodEnd.toISOString(),
  cancelled_at: iso(subscription.cancelledAt),
  cancel_at_period_end: subscription.cancelAtPeriodEnd,
  cancelled_by: subscription.cancelledBy,
  created_at: subscription.createdAt.toISOString(),
  customer_id: subscription.customerId,
  plan_id: subscription.planId,
});

/**
 * subscription.updated (docs/api-behaviour.md §18): the subscription event data, the plan it was
 * on before this update (the same as plan_id when only a pending change was set or dropped) and
 * the change pending at its period's end, if any.
 */
export const subscriptionUpdatedEventData = (
  subscription: SubscriptionModel,
  customerEmail: string,
  previousPlanId: string,
) => ({
  ...subscriptionEventData(subscription, customerEmail),
  previous_plan_id: previousPlanId,
  pending_plan_id: subscription.pendingPlanId ?? null,
  pending_plan_change_at: iso(subscription.pendingPlanChangeAt ?? null),
});

/**
 * invoice.*: the invoice.paid shape of docs/api-behaviour.md §0 + subscription_id, customer_id, and
 * the money of §20 (discount, credit_applied, amount_due).
 */
export const invoiceEventData = (invoice: InvoiceModel, customerEmail: string) => ({
  id: invoice.id,
  amount: toMajorUnits(invoice.amount),
  discount: toMajorUnits(invoice.discount),
  credit_applied: toMajorUnits(invoice.creditApplied),
  amount_due: toMajorUnits(invoice.amountDue),
  currency: invoice.currency,
  customer_email: customerEmail,
  status: invoice.status,
  paid_at: iso(invoice.paidAt),
  subscription_id: invoice.subscriptionId,
  customer_id: invoice.customerId,
});

/** The refund object of docs/api-behaviour.md §16.4 (+ livemode): `refund` of subscription.cancelled. */
export const refundEventData = (refund: RefundView) => ({
  id: refund.id,
  amount: toMajorUnits(refund.amount),
  currency: refund.currency,
  status: refund.status,
  policy_id: refund.policyId,
  invoice_id: refund.invoiceId,
  livemode: refund.livemode,
});

/** refund.processed: the refund resource, with the subscription it belongs to. */
export const refundProcessedEventData = (refund: RefundView) => ({
  ...refundEventData(refund),
  subscription_id: refund.subscriptionId,
});
