import { recordEvent } from '@billing/platform';
import { PaymentProviderError } from '@billing/payments';
import type { RefundModel } from '../db/models';
import { refundProcessedEventData } from '../events/event-payloads';
import type { BillingDeps } from './billing-deps';
import { refundViewOf } from './refund-views';

/**
 * Issues a subscription's refunds that were decided (PENDING) but not yet sent to the provider.
 * Each refund is claimed first, so however many callers run this at once, the provider hears
 * about each refund once. Never throws: the change that decided the refund is committed, and a
 * refund the provider could not take stays PENDING for the next caller.
 */
export async function issuePendingRefunds(deps: BillingDeps, subscriptionId: string): Promise<void> {
  await issueRefunds(deps, await deps.refunds.listPendingForSubscription(subscriptionId));
}

/**
 * The next caller of refunds nobody else retries: ones the provider could not take, or whose
 * deciding request died before issuing them, left PENDING for `olderThanMs` of real time (so a
 * request still issuing its own refund is not raced). Run by billing's polling loop.
 */
export async function issueDueRefunds(
  deps: BillingDeps,
  options: { olderThanMs: number; limit?: number },
): Promise<void> {
  const notAfter = new Date(deps.clock.now().getTime() - options.olderThanMs);
  await issueRefunds(deps, await deps.refunds.listPendingSince(notAfter, options.limit ?? 100));
}

async function issueRefunds(deps: BillingDeps, pending: RefundModel[]): Promise<void> {
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
      await recordProcessed(deps, refund, issued.id);
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
    await recordEvent(deps.sequelize, transaction, {
      type: 'refund.processed',
      data: refundProcessedEventData({ ...refundViewOf(refund), status: 'PROCESSED' }),
      ...scope,
      occurredAt: now,
    });
  });
}
