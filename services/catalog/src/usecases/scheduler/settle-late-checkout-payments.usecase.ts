import type { CatalogDeps } from '../../catalog-deps';
import { applyCheckoutPayment } from '../../checkout/apply-checkout-payment';
import { LATE_PAYMENT_WATCH_MS } from '../../domain/checkout-session';

/** How long a late payment of an ended session waits before billing is asked about it again. */
const LATE_PAYMENT_RECHECK_MS = 60_000;

/**
 * Payments of sessions that ended while the payer was still at the provider: billing is asked
 * about each until the provider's answer is final, and refunds it if it was taken. The callback
 * and the provider's webhook do the same at once; this catches a payer who never came back and
 * a webhook that was lost. Returns how many were settled.
 */
export async function settleLateCheckoutPayments(deps: CatalogDeps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  const rows = await deps.checkoutPayments.listUnsettledOfEndedSessions(
    new Date(now.getTime() - LATE_PAYMENT_WATCH_MS),
    new Date(now.getTime() - LATE_PAYMENT_RECHECK_MS),
    limit,
  );
  let settled = 0;
  for (const row of rows) {
    try {
      const session = await deps.checkoutSessions.findById(row.session_id);
      if (session && (await applyCheckoutPayment(deps, session, row.reference))) settled += 1;
    } catch (err) {
      deps.logger.warn({ err, reference: row.reference }, 'late checkout payment not settled; will retry');
      await deps.checkoutPayments.touch(row.reference, deps.clock.now());
    }
  }
  return settled;
}
