import { DomainError } from '@billing/platform';
import type { CatalogDeps } from '../../catalog-deps';
import { findOpenSession } from '../../checkout/find-open-session';
import { moveOutOfPending } from '../../checkout/move-out-of-pending';
import type { CheckoutSessionModel } from '../../db/models/checkout-session.model';

/** "Cancel" on the hosted page. */
export async function cancelCheckout(deps: CatalogDeps, code: string): Promise<CheckoutSessionModel> {
  const session = await findOpenSession(deps, code);
  if (!session) throw new DomainError('not_found', 'Checkout session not found');
  await deps.sequelize.transaction((transaction) => moveOutOfPending(deps, session.id, 'CANCELLED', {}, transaction));
  await deps.checkoutSessions.refresh(session);
  return session;
}
