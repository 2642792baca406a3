import type { SubscriptionStatus } from './monthly-recurring-revenue';

/**
 * The facts billing records on its events for the analytics read model (docs/api-behaviour.md
 * §25), on the envelope's `analytics` field, never in the webhook `data`. Amounts are integer
 * minor units of `currency`; the time of a fact is its envelope's `created_at` (the project's
 * clock: test-clock time in test mode).
 */
export type AnalyticsFact = SubscriptionMrrFact | InvoicePaymentFact | RefundFact;

/** On every subscription.* event: the subscription's state and MRR after the change. */
export interface SubscriptionMrrFact {
  kind: 'subscription_mrr';
  subscription_id: string;
  customer_id: string;
  currency: string;
  status: SubscriptionStatus;
  /** Whether it contributes to MRR (ACTIVE or PAST_DUE). */
  contributing: boolean;
  /** monthlyRecurringRevenue of the subscription; 0 when it does not contribute. */
  mrr: number;
}

/** On invoice.paid: what the payment collected and the invoice's tax. */
export interface InvoicePaymentFact {
  kind: 'invoice_payment';
  invoice_id: string;
  customer_id: string;
  currency: string;
  /** What the provider collected for this invoice (0 when the customer's balance paid it all). */
  charged: number;
  /**
   * The invoice's tax (§21), counted in the month it was paid: negative on the credit invoice of
   * an immediate downgrade (§18), whose credit gives back tax the customer had paid.
   */
  tax: number;
}

/** On refund.processed and on credit_note.created with money back to the card: money returned. */
export interface RefundFact {
  kind: 'refund';
  /** The provider's refund this is (one fact per refund, never two for the same money). */
  refund_id: string;
  currency: string;
  amount: number;
}

export const ANALYTICS_FACT_KINDS = ['subscription_mrr', 'invoice_payment', 'refund'] as const;
