/**
 * Billing's side of the refund on cancelling now (docs/api-behaviour.md §8, 10 and 16.4/16.18). The policy
 * service decides how much of the paid amount goes back; billing says what was paid for the
 * current period, issues the refund and shows it. Money in minor units.
 */

/** One invoice line, as far as refunds care. */
export interface BilledLine {
  amount: number;
  periodStart: Date;
}

/** The invoice of the subscription's current period. */
export interface PeriodInvoice {
  status: string;
  periodStart: Date;
  amountPaid: number;
  amountRefunded: number;
  lines: BilledLine[];
}

/**
 * P of docs/api-behaviour.md §10, "the current period's paid amount (after earlier refunds)": what the
 * current period's invoice collected for this period, minus what was refunded of it or is being
 * refunded right now. A line that bills an earlier period (metered usage, billed in arrears) paid
 * for service already used, so it is not part of P. An invoice not PAID collected nothing.
 */
export function refundableAmount(invoice: PeriodInvoice | null, refundsInFlight: number): number {
  if (!invoice || invoice.status !== 'PAID') return 0;
  const forThisPeriod = invoice.lines
    .filter((line) => line.periodStart.getTime() === invoice.periodStart.getTime())
    .reduce((sum, line) => sum + line.amount, 0);
  return Math.max(0, Math.min(invoice.amountPaid, forThisPeriod) - invoice.amountRefunded - refundsInFlight);
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
