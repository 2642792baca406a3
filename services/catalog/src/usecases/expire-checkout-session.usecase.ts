import { recordEvent, type ProjectScope } from '@billing/platform';
import { nextCheckoutStatus } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from './catalog-deps';
import { checkoutSessionResource } from './checkout-session-resource';

/** `POST /checkout/sessions/{code}/expire`: only a PENDING session can be expired (else 400). */
export async function expireCheckoutSession(
  deps: CatalogDeps,
  scope: ProjectScope,
  code: string,
): Promise<CheckoutSessionModel> {
  const session = await deps.checkoutSessions.getByCode(scope, code);
  const expired = await deps.sequelize.transaction(async (transaction) => {
    const updated = await deps.checkoutSessions.leavePending(session.id, 'EXPIRED', {}, transaction);
    if (updated) await recordExpiry(deps, updated, transaction);
    return updated;
  });
  if (expired) return expired;
  await session.reload();
  nextCheckoutStatus(session.status, 'expire');
  return session;
}

/**
 * The sweep: PENDING sessions past `expires_at` become EXPIRED, each with its event, in
 * batches claimed with SKIP LOCKED so that catalog replicas share the work. Returns how many.
 */
export async function expireDueCheckoutSessions(deps: CatalogDeps, batchSize = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await deps.sequelize.transaction(async (transaction) => {
      const ids = await deps.checkoutSessions.claimExpired(deps.clock.now(), batchSize, transaction);
      for (const id of ids) {
        const expired = await deps.checkoutSessions.leavePending(id, 'EXPIRED', {}, transaction);
        if (expired) await recordExpiry(deps, expired, transaction);
      }
      return ids.length;
    });
    total += count;
    if (count < batchSize) return total;
  }
}

function recordExpiry(deps: CatalogDeps, session: CheckoutSessionModel, transaction: import('sequelize').Transaction) {
  return recordEvent(deps.sequelize, transaction, {
    type: 'checkout.session.expired',
    data: checkoutSessionResource(session, deps.publicUrl),
    projectId: session.projectId,
    livemode: session.livemode,
    occurredAt: deps.clock.now(),
  });
}
