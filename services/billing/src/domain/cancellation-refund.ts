/**
 * Billing's side of the refund on cancelling now (docs/api-behaviour.md §8, 10 and 16.4/16.18). The policy
 * service decides how much of the paid amount goes back; billing says what was paid for the
 * current period, issues the refund and shows it. Money in minor units.
 */

/** The charge a cancellation refund gives money back from: the one that paid the period's invoice. */
export interface PeriodCharge {
  /** What the card paid on that invoice. */
  amountPaid: number;
  /** What was already given back of it. */
  amountRefunded: number;
}

/**
 * What cancelling now can give back through the provider (docs/api-behaviour.md §10): P, what was
 * paid for the current period and is still held (period-payment.ts: earlier refunds and credit
 * already returned for the period are out of it, and so are usage lines, which paid for service
 * already used), less refunds in flight, and never more than the charge that paid the period
 * still holds. No charge (a free period, one paid by credit alone) -> 0.
 */
export function refundableAmount(held: number, charge: PeriodCharge | null, refundsInFlight: number): number {
  if (!charge) return 0;
  return Math.max(0, Math.min(held, charge.amountPaid - charge.amountRefunded) - refundsInFlight);
}

/** A trial period was not paid for (docs/api-behaviour.md §10): it refunds nothing. */
export function isTrialPeriod(subscription: { trialEnd: Date | null; currentPeriodStart: Date }): boolean {
  return subscription.trialEnd !== null && subscription.currentPeriodStart.getTime() < subscription.trialEnd.getTime();
}

/**
 * Our idempotency key of a subscription's cancellation refund. Unique in the refunds table, so
 * a subscription is refunded on cancellation at most once, however often cancel is called.
 */
export const cancellationRefundReference = (subscriptionId: string) => `cancel-${subscriptionId}`;

/** Refund statuses as the API shows them (docs/api-behaviour.md §16.4). */
export type PublicRefundStatus = 'PENDING' | 'PROCESSED' | 'FAILED';

/** PROCESSING (one caller is talking to the provider) is still pending to the outside world. */
export const publicRefundStatus = (status: string): PublicRefundStatus =>
  status === 'PROCESSED' || status === 'FAILED' ? status : 'PENDING';

/**
 * The refund of a cancel-now as the API and the events show it (docs/api-behaviour.md §16.4, 16.23), in minor
 * units. `id` is null in a preview and when the amount is 0 (nothing goes to the provider).
 */
export interface RefundView {
  id: string | null;
  amount: number;
  currency: string;
  status: PublicRefundStatus;
  policyId: string;
  invoiceId: string | null;
  subscriptionId: string;
  livemode: boolean;
}
