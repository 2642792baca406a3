import { contributesToMrr, monthlyRecurringRevenue, type SubscriptionMrrFact } from '@billing/analytics';
import type { InvoiceTax } from '@billing/platform';
import type { Interval } from './periods';
import { discountOf, type DiscountColumns } from './subscription-discount';
import type { SubscriptionStatus } from './subscription-status';

/** What a subscription's MRR depends on, as billing keeps it (its row). */
export interface SubscriptionMrrTerms extends DiscountColumns {
  id: string;
  customerId: string;
  currency: string;
  status: SubscriptionStatus;
  /** The current plan's price (minor units) per `intervalCount` x `interval`; usage is never MRR. */
  amount: number;
  interval: Interval;
  intervalCount: number;
}

/**
 * The MRR fact of a subscription in the state it is in (docs/api-behaviour.md §25): its status,
 * whether that contributes, and monthlyRecurringRevenue (@billing/analytics, the one rule) of its
 * current plan's terms, its discount (only a FOREVER one reduces it) and `nextInvoiceTax`, the tax
 * its next recurring invoice would apply (invoiceTaxesOf: its rates and its customer's exemption
 * as they are now), so MRR is net of tax exactly as its invoices will be.
 */
export function subscriptionMrrFact(
  subscription: SubscriptionMrrTerms,
  nextInvoiceTax: InvoiceTax,
): SubscriptionMrrFact {
  const discount = discountOf(subscription);
  return {
    kind: 'subscription_mrr',
    subscription_id: subscription.id,
    customer_id: subscription.customerId,
    currency: subscription.currency,
    status: subscription.status,
    contributing: contributesToMrr(subscription.status),
    mrr: monthlyRecurringRevenue({
      status: subscription.status,
      plan: { amount: subscription.amount, interval: subscription.interval, intervalCount: subscription.intervalCount },
      coupon: discount && {
        percentOff: discount.percentOff,
        amountOff: discount.amountOff,
        duration: discount.duration,
      },
      tax: nextInvoiceTax,
    }),
  };
}
