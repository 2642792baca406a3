import type { CatalogDeps } from '../catalog-deps';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import { applyCheckoutPayment } from './apply-checkout-payment';
import { moveOutOfPending } from './move-out-of-pending';

/** A PENDING session past its expiry, met by a hosted page: expired now unless a payment is in flight. */
export async function expireIfDue(deps: CatalogDeps, session: CheckoutSessionModel): Promise<void> {
  const now = await deps.clocks.now({ projectId: session.projectId, livemode: session.livemode });
  if (session.expiresAt.getTime() > now.getTime()) return;
  await expireUnlessPaymentInFlight(deps, session);
  await deps.checkoutSessions.refresh(session);
}

/**
 * The expiry of a due session never strands a payment. Each payment it started and whose
 * outcome is unknown is verified with the provider first:
 *  - paid: the session is completed with it instead (the payer paid in time, the callback
 *    has not arrived yet);
 *  - still open at the provider (the payer is on its page), started less than
 *    CHECKOUT_PAYMENT_IN_FLIGHT_MS ago, or the provider unreachable: in flight, not expired now;
 *  - refused or unknown to the provider: nothing was taken.
 * A payment that succeeds after the expiry is refunded by billing (applyCheckoutPayment).
 * Returns whether the session left PENDING.
 */
async function expireUnlessPaymentInFlight(deps: CatalogDeps, session: CheckoutSessionModel): Promise<boolean> {
  for (const payment of await deps.checkoutPayments.listStarted(session.id)) {
    let verified;
    try {
      verified = await deps.paymentsFor(session.livemode).verifyTransaction(payment.reference);
    } catch (err) {
      deps.logger.warn({ err, code: session.code }, 'checkout payment not verifiable; expiry postponed');
      return false;
    }
    if (verified?.status === 'success') {
      await applyCheckoutPayment(deps, session, payment.reference);
      return true;
    }
    const open = verified?.status === 'pending' || verified?.status === 'abandoned';
    if (open && deps.clock.now().getTime() - payment.startedAt.getTime() < deps.paymentInFlightMs) return false;
    if (!open) await deps.checkoutPayments.settle(payment.reference, 'NOT_PAID', deps.clock.now());
  }
  const expired = await deps.sequelize.transaction((transaction) =>
    moveOutOfPending(deps, session.id, 'EXPIRED', {}, transaction),
  );
  return expired !== null;
}

/**
 * The sweep of one mode: PENDING sessions past `expires_at` become EXPIRED, each with its event.
 * Those without a started payment go in batches claimed with SKIP LOCKED so that catalog
 * replicas share the work; those with one are asked about first (expireUnlessPaymentInFlight),
 * outside any lock while the provider answers. Returns how many left PENDING. Live and test
 * mode are swept apart (the test/live separation in docs/events-and-test-mode.md), so test
 * sessions a test clock expired by the thousand never delay a live one.
 */
export async function sweepExpiredSessions(deps: CatalogDeps, livemode: boolean, batchSize = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await deps.sequelize.transaction(async (transaction) => {
      const ids = await deps.checkoutSessions.claimExpired(deps.clock.now(), livemode, batchSize, transaction, {
        withPayment: false,
      });
      for (const id of ids) await moveOutOfPending(deps, id, 'EXPIRED', {}, transaction);
      return ids.length;
    });
    total += count;
    if (count < batchSize) break;
  }
  const seen: string[] = [];
  for (;;) {
    const ids = await deps.sequelize.transaction((transaction) =>
      deps.checkoutSessions.claimExpired(deps.clock.now(), livemode, batchSize, transaction, {
        withPayment: true,
        skip: seen,
      }),
    );
    for (const id of ids) {
      seen.push(id);
      const session = await deps.checkoutSessions.findById(id);
      try {
        if (session?.status === 'PENDING' && (await expireUnlessPaymentInFlight(deps, session))) total += 1;
      } catch (err) {
        deps.logger.warn({ err, code: session?.code }, 'checkout session not expired; will retry');
      }
    }
    if (ids.length < batchSize) return total;
  }
}
