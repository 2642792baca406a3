import type { CatalogDeps } from '../catalog-deps';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import { expireIfDue } from './session-expiry';

/** The session of a hosted page's link, as the payer may act on it now (null: no such link). */
export async function findOpenSession(deps: CatalogDeps, code: string): Promise<CheckoutSessionModel | null> {
  const session = await deps.checkoutSessions.findByCode(code);
  // Expired but not swept yet: show it as expired now rather than take a payment (unless a
  // payment is in flight, which the expiry waits for).
  if (session?.status === 'PENDING') await expireIfDue(deps, session);
  return session;
}
