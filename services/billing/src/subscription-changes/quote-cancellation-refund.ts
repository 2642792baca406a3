import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { InvoiceModel, PaymentModel, SubscriptionModel } from '../db/models';
import { isTrialPeriod, refundableAmount, type RefundView } from '../domain/cancellation-refund';
import { heldForPeriod } from '../domain/period-payment';
import type { BillingDeps } from '../billing-deps';

export interface CancellationQuote {
  /** What cancelling now refunds (`id` null, PENDING); null when no policy applies. */
  refund: RefundView | null;
  /** The charge the refund gives money back from; null when there is nothing to give back. */
  payment: PaymentModel | null;
  /** The invoice of the period the refund is recorded on (locked under the cancel's transaction). */
  invoice: InvoiceModel | null;
}

/**
 * The refund of cancelling `subscription` now, at `now` (the project's time): billing says what
 * the current period's invoice collected, the policy service picks the policy (`policyId`, else
 * the default; docs/api-behaviour.md §10 and 16.5) and computes the refund. Cancel and its preview both ask
 * here, so a preview shows what the cancel would refund at the same moment. NOT_FOUND and
 * PERMISSION_DENIED for `policyId` come back from the policy service as they are.
 */
export async function quoteCancellationRefund(
  deps: BillingDeps,
  scope: ProjectScope,
  subscription: SubscriptionModel,
  options: { policyId?: string; now: Date; transaction?: Transaction },
): Promise<CancellationQuote> {
  const { transaction } = options;
  const found = await deps.invoices.findForPeriod(subscription.id, subscription.currentPeriodStart, transaction);
  // A cancel locks the invoice as a credit note does (docs/api-behaviour.md §23): what it was
  // paid, refunded and credited stays as read here until the refund and its note commit.
  const invoice = found && transaction ? await deps.invoices.lock(found.id, transaction) : found;
  const payment =
    invoice?.status === 'PAID' ? await deps.payments.findSucceededForInvoice(invoice.id, transaction) : null;
  // Without the charge that paid the period (a free period) there is nothing to give back.
  const refundable =
    invoice && payment
      ? Math.min(
          refundableAmount(
            heldForPeriod(
              await deps.invoices.moneyOfPeriod(
                subscription.id,
                { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd },
                transaction,
              ),
            ),
            invoice,
            await deps.refunds.amountInFlightForInvoice(invoice.id, transaction),
          ),
          // The refund is a credit note of the invoice (§23): never more than its notes (a merchant's
          // note to the balance included) leave to credit, so nothing is given back twice.
          invoice.amount - (await deps.creditNotes.earlierOf(invoice.id, transaction)).amount,
        )
      : 0;
  const answer = await deps.policy.quoteRefund({
    scope,
    policyId: options.policyId,
    subscriptionCreatedAt: subscription.createdAt,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    refundableAmount: refundable,
    currency: subscription.currency,
    isTrial: isTrialPeriod(subscription),
    cancelledAt: options.now,
  });
  if (!answer.policyId) return { refund: null, payment: null, invoice };
  // Never more than was paid, whatever the answer.
  const amount = Math.min(answer.amount, refundable);
  return {
    refund: {
      id: null,
      amount,
      currency: subscription.currency,
      status: 'PENDING',
      policyId: answer.policyId,
      invoiceId: invoice?.id ?? null,
      subscriptionId: subscription.id,
      livemode: subscription.livemode,
    },
    payment: amount > 0 ? payment : null,
    invoice,
  };
}
