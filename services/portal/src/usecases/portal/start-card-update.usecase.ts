import { notOffered } from '../../actions/action-rules';
import { scopeOf } from '../../browser-sessions/browser-session';
import { settingsFor } from '../../configurations/settings-of';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * "Confirm" of "Update card": billing starts the provider's authorization of a new card (the
 * sandbox in test mode) and says where to send the customer; the provider sends them back to
 * /portal/card/callback.
 */
export async function startCardUpdate(deps: PortalDeps, session: PortalSessionModel): Promise<string> {
  const scope = scopeOf(session);
  const settings = await settingsFor(() => deps.configurations.find(scope));
  if (!settings.paymentMethodUpdate) throw notOffered('Updating the card');
  const { authorizationUrl } = await deps.cards.startCardUpdate({
    scope,
    customerId: session.customerId,
    subscriptionId: '',
    returnUrl: `${deps.settings.publicUrl}/portal/card/callback`,
  });
  return authorizationUrl;
}
