import { scopeOf } from '../../browser-sessions/browser-session';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * The provider's page came back from "Update card": billing applies the authorization once
 * (renewals and dunning retries then charge the new card) and says how it went.
 */
export async function finishCardUpdate(
  deps: PortalDeps,
  session: PortalSessionModel,
  reference: string,
): Promise<string> {
  const { outcome } = await deps.cards.applyCardUpdate({
    scope: scopeOf(session),
    customerId: session.customerId,
    transactionReference: reference,
  });
  return outcome;
}
