import type { ProjectScope } from '@billing/platform';
import { nextCheckoutStatus } from '../../domain/checkout-session';
import type { CheckoutSessionModel } from '../../db/models/checkout-session.model';
import type { CatalogDeps } from '../../catalog-deps';
import { moveOutOfPending } from '../../checkout/move-out-of-pending';

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
  await deps.checkoutSessions.refresh(session);
  nextCheckoutStatus(session.status, 'expire');
  return session;
}
