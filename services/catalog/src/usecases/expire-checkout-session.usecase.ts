import type { ProjectScope } from '@billing/platform';
import { nextCheckoutStatus } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from './catalog-deps';
import { moveOutOfPending } from './move-checkout-session';

/** `POST /checkout/sessions/{code}/expire`: only a PENDING session can be expired (else 400). */
export async function expireCheckoutSession(
  deps: CatalogDeps,
  scope: ProjectScope,
  code: string,
): Promise<CheckoutSessionModel> {
  const session = await deps.checkoutSessions.getByCode(scope, code);
  const expired = await deps.sequelize.transaction((transaction) =>
    moveOutOfPending(deps, session.id, 'EXPIRED', {}, transaction),
  );
  if (expired) return expired;
  await session.reload();
  nextCheckoutStatus(session.status, 'expire');
  return session;
}

/**
 * The sweep of one mode: PENDING sessions past `expires_at` become EXPIRED, each with its event,
 * in batches claimed with SKIP LOCKED so that catalog replicas share the work. Returns how many.
 * Live and test mode are swept apart (the test/live separation in docs/events-and-test-mode.md),
 * so test sessions a test clock expired by the thousand never delay a live one.
 */
export async function expireDueCheckoutSessions(
  deps: CatalogDeps,
  livemode: boolean,
  batchSize = 100,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await deps.sequelize.transaction(async (transaction) => {
      const ids = await deps.checkoutSessions.claimExpired(deps.clock.now(), livemode, batchSize, transaction);
      for (const id of ids) await moveOutOfPending(deps, id, 'EXPIRED', {}, transaction);
      return ids.length;
    });
    total += count;
    if (count < batchSize) return total;
  }
}
