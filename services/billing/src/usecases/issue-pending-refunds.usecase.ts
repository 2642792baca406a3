import { PaymentProviderError } from '@billing/payments';
import type { RefundModel } from '../db/models';
import type { BillingDeps } from './billing-deps';

/**
 * Issues a subscription's refunds that were decided (PENDING) but not yet sent to the provider.
 * Each refund is claimed first, so however many callers run this at once, the provider hears
 * about each refund once. Never throws: the change that decided the refund is committed, and a
 * refund the provider could not take stays PENDING for the next caller.
 */
export async function issuePendingRefunds(deps: BillingDeps, subscriptionId: string): Promise<void> {
  const pending = await deps.refunds.listPendingForSubscription(subscriptionId);
  for (const refund of pending) {
    if (await deps.refunds.claim(refund.id, deps.clock.now())) await issueClaimedRefund(deps, refund);
  }
}

/** Sends one claimed refund to the provider and records the answer (never throws). */
export async function issueClaimedRefund(deps: BillingDeps, refund: RefundModel): Promise<void> {
  try {
    const issued = await deps.providerFor(refund.livemode).refund({
      transactionReference: refund.transactionReference,
      amount: refund.amount,
    });
    if (issued.status === 'failed') {
      await deps.refunds.markFailed(refund.id, 'The payment provider reported the refund as failed', deps.clock.now());
    } else {
      // Accepted by the provider (processed, or pending on its side): ours is done.
      await deps.refunds.markProcessed(refund.id, issued.id, deps.clock.now());
    }
  } catch (err) {
    if (err instanceof PaymentProviderError && !err.retryable) {
      deps.logger.warn({ err, refund_id: refund.id }, 'payment provider refused a refund');
      await deps.refunds.markFailed(refund.id, err.message, deps.clock.now());
      return;
    }
    // Unknown outcome or unreachable provider: back to PENDING, the next caller retries it.
    deps.logger.warn({ err, refund_id: refund.id }, 'refund not issued; will retry');
    await deps.refunds.release(refund.id, deps.clock.now()).catch(() => undefined);
  }
}
