import type { BillingDeps } from '../../billing-deps';
import { issueClaimedRefund, issueRefunds } from '../../invoicing/refund-issuing';

/**
 * The next caller of refunds nobody else retries, run by billing's polling loop:
 *  - PENDING for `olderThanMs` of real time: the provider could not take them, their outcome was
 *    unknown (a timeout), or the deciding request died before issuing them;
 *  - PROCESSING for `olderThanMs`: the caller died between claiming and recording (a crash right
 *    after the provider accepted). `olderThanMs` is longer than any provider call may take, so
 *    a caller still waiting for its answer is not raced.
 * Both count as a new attempt, so the provider is asked before anything is sent again.
 */
export async function issueDueRefunds(
  deps: BillingDeps,
  options: { olderThanMs: number; limit?: number },
): Promise<void> {
  const notAfter = new Date(deps.clock.now().getTime() - options.olderThanMs);
  const limit = options.limit ?? 100;
  for (const refund of await deps.refunds.reclaimStale(notAfter, deps.clock.now(), limit)) {
    deps.logger.warn({ refund_id: refund.id, attempts: refund.attempts }, 'refund left PROCESSING; settling it');
    await issueClaimedRefund(deps, refund);
  }
  await issueRefunds(deps, await deps.refunds.listPendingSince(notAfter, limit));
}
