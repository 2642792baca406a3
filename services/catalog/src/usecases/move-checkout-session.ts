import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { CheckoutStatus } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from './catalog-deps';
import { checkoutSessionResource } from './checkout-session-resource';

const EVENT_OF: Partial<Record<CheckoutStatus, string>> = {
  COMPLETED: 'checkout.session.completed',
  EXPIRED: 'checkout.session.expired',
};

/**
 * Moves a PENDING session to `status` and writes its event (if the catalogue has one) in the
 * same transaction. Returns null when the session was no longer PENDING: someone else moved it.
 */
export async function moveOutOfPending(
  deps: CatalogDeps,
  sessionId: string,
  status: Exclude<CheckoutStatus, 'PENDING'>,
  changes: Parameters<CatalogDeps['checkoutSessions']['leavePending']>[2],
  transaction: Transaction,
): Promise<CheckoutSessionModel | null> {
  const moved = await deps.checkoutSessions.leavePending(sessionId, status, changes, transaction);
  const event = EVENT_OF[status];
  if (moved && event) {
    await recordEvent(deps.sequelize, transaction, {
      type: event,
      data: checkoutSessionResource(moved, deps.publicUrl),
      projectId: moved.projectId,
      livemode: moved.livemode,
      occurredAt: await deps.clocks.now({ projectId: moved.projectId, livemode: moved.livemode }, transaction),
    });
  }
  return moved;
}
