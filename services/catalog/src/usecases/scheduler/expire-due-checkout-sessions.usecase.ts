import type { CatalogDeps } from '../../catalog-deps';
import { sweepExpiredSessions } from '../../checkout/session-expiry';

/**
 * The expiry sweep's run, every CHECKOUT_EXPIRY_SWEEP_MS for each mode (server.ts). A test
 * clock's advance runs the same sweep (advance-test-clock.usecase.ts). Returns how many sessions
 * left PENDING.
 */
export function expireDueCheckoutSessions(deps: CatalogDeps, livemode: boolean): Promise<number> {
  return sweepExpiredSessions(deps, livemode);
}
