import { deliveryLeaseMs, startClaimedDeliveries, type AttemptTracker } from '../../delivery/delivery-attempts';
import type { WebhookDeps } from '../../notification-deps';

/** Deliveries claimed per pass, and of one webhook at most, so one receiver cannot take them all. */
const CLAIM_LIMIT = 500;
const PER_WEBHOOK = 200;

/**
 * One pass of a delivery worker: claims due deliveries (with a lease, `deliveryLeaseMs`) and
 * starts sending each, signed afresh. It does not wait for the answers. Returns how many it
 * started.
 */
export async function startDueDeliveries(deps: WebhookDeps, attempts: AttemptTracker): Promise<number> {
  const room = attempts.room();
  if (room <= 0) return 0;
  const claimed = await deps.deliveries.claimDue(
    deps.clock.now(),
    Math.min(CLAIM_LIMIT, room),
    PER_WEBHOOK,
    deliveryLeaseMs(deps),
  );
  startClaimedDeliveries(deps, claimed, attempts);
  return claimed.length;
}
