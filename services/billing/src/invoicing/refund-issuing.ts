import { recordEvent } from '@billing/platform';
import { PaymentProviderError, type ProviderRefund } from '@billing/payments';
import type { RefundModel } from '../db/models';
import { findOwnRefund } from '../domain/refund-recovery';
import { refundEvents } from '../events/refund.events';
import type { BillingDeps } from '../billing-deps';
import { countRefund } from '../billing-metrics';

/**
 * Issues a subscription's refunds that were decided (PENDING) but not yet sent to the provider.
 * Each refund is claimed first, so however many callers run this at once, the provider hears
 * about each refund once. Never throws: the change that decided the refund is committed, and a
 * refund the provider could not take stays PENDING for the next caller.
 */
export async function issuePendingRefunds(deps: BillingDeps, subscriptionId: string): Promise<void> {
  await issueRefunds(deps, await deps.refunds.listPendingForSubscription(subscriptionId));
}

/** Claims each refund and, if this caller got it, issues it. */
export async function issueRefunds(deps: BillingDeps, pending: RefundModel[]): Promise<void> {
  for (const refund of pending) {
    const claimed = await deps.refunds.claim(refund.id, deps.clock.now());
    if (claimed) await issueClaimedRefund(deps, claimed);
  }
}

/**
 * Sends one claimed refund to the provider and records the answer (never throws). A refund
 * handed over before (attempts > 1) may have been taken without us hearing it: Paystack refunds
 * carry no idempotency key, so the provider's refunds of the transaction are read first, and one
 * carrying our reference is recorded instead of sending another (docs/payment-recovery.md).
 */
export async function issueClaimedRefund(deps: BillingDeps, refund: RefundModel): Promise<void> {
  const provider = deps.providerFor(refund.livemode);
  try {
    if (refund.attempts > 1) {
      const own = findOwnRefund(
        await provider.listRefunds(refund.transactionReference),
        refund,
        await deps.refunds.providerIdsRecordedFor(refund.transactionReference, refund.id),
      );
      if (own) {
        deps.logger.info({ refund_id: refund.id, provider_refund_id: own.id }, 'refund found at the provider');
        return await recordAnswer(deps, refund, own);
      }
    }
    const issued = await provider.refund({
      transactionReference: refund.transactionReference,
      amount: refund.amount,
      merchantNote: refund.reference,
    });
    deps.afterRefundSent?.();
    await recordAnswer(deps, refund, issued);
  } catch (err) {
    if (err instanceof PaymentProviderError && !err.retryable) {
      deps.logger.warn({ err, refund_id: refund.id }, 'payment provider refused a refund');
      await deps.refunds.markFailed(refund.id, err.message, deps.clock.now());
      countRefund('failed', refund.livemode);
      return;
    }
    // Unknown outcome or unreachable provider: back to PENDING; the next attempt looks first.
    deps.logger.warn({ err, refund_id: refund.id }, 'refund not issued; will retry');
    countRefund('retry', refund.livemode);
    await deps.refunds.release(refund.id, deps.clock.now()).catch(() => undefined);
  }
}

async function recordAnswer(deps: BillingDeps, refund: RefundModel, answer: ProviderRefund): Promise<void> {
  if (answer.status === 'failed') {
    await deps.refunds.markFailed(refund.id, 'The payment provider reported the refund as failed', deps.clock.now());
    countRefund('failed', refund.livemode);
  } else {
    // Accepted by the provider (processed, or pending on its side): ours is done.
    await recordProcessed(deps, refund, answer.id);
    countRefund('processed', refund.livemode);
  }
}

/**
 * PROCESSED, the money on the invoice's `amount_refunded` and, for a cancellation refund,
 * refund.processed in the outbox: one transaction, so the three never disagree.
 */
async function recordProcessed(deps: BillingDeps, refund: RefundModel, providerRefundId: string): Promise<void> {
  await deps.sequelize.transaction(async (transaction) => {
    if (!(await deps.refunds.markProcessed(refund.id, providerRefundId, deps.clock.now(), transaction))) return;
    const scope = { projectId: refund.projectId, livemode: refund.livemode };
    const now = await deps.clocks.now(scope, transaction);
    if (refund.invoiceId) await deps.invoices.addRefunded(refund.invoiceId, refund.amount, now, transaction);
    // Verification and abandoned-charge refunds are the platform's own business, not the merchant's.
    if (refund.reason !== 'CANCELLATION') return;
    await recordEvent(deps.sequelize, transaction, refundEvents.processed(refund, now));
  });
}
