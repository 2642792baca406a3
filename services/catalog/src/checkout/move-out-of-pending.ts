import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import { checkoutRedemptionKey, type CheckoutStatus } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from '../catalog-deps';
import { checkoutSessionEvents } from '../events/checkout-session.events';
import { giveBackRedemption } from '../coupon-redemptions/give-back-redemption';

/** The statuses the event catalogue has an event for (a cancelled session has none). */
const EVENT_OF: Partial<Record<CheckoutStatus, typeof checkoutSessionEvents.completed>> = {
  COMPLETED: checkoutSessionEvents.completed,
  EXPIRED: checkoutSessionEvents.expired,
};

/**
 * Moves a PENDING session to `status` and writes its event (if the catalogue has one) in the
 * same transaction. A session that ends unpaid (EXPIRED, CANCELLED) gives its coupon's
 * redemption back in that transaction too (docs/api-behaviour.md §19). Returns null when the
 * session was no longer PENDING: someone else moved it.
 */
export async function moveOutOfPending(
  deps: CatalogDeps,
  sessionId: string,
  status: Exclude<CheckoutStatus, 'PENDING'>,
  changes: Parameters<CatalogDeps['checkoutSessions']['leavePending']>[2],
  transaction: Transaction,
): Promise<CheckoutSessionModel | null> {
  const moved = await deps.checkoutSessions.leavePending(sessionId, status, changes, transaction);
  if (!moved) return null;
  const scope = { projectId: moved.projectId, merchantId: moved.merchantId, livemode: moved.livemode };
  if (status !== 'COMPLETED' && moved.coupon) {
    await giveBackRedemption(deps, scope, checkoutRedemptionKey(moved.id), transaction);
  }
  const event = EVENT_OF[status];
  if (event) {
    const plan = await deps.plans.ofSession(moved.planId, transaction);
    const occurredAt = await deps.clocks.now(scope, transaction);
    await recordEvent(deps.sequelize, transaction, event(moved, plan, deps.publicUrl, occurredAt));
  }
  return moved;
}
