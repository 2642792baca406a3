import { notOffered } from '../../actions/action-rules';
import { scopeOf } from '../../browser-sessions/browser-session';
import { ownedSubscription } from '../../browser-sessions/owned-subscription';
import { settingsFor } from '../../configurations/settings-of';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * "Confirm" of "Update card" for one of the customer's subscriptions: billing starts the
 * provider's authorization of a new card (the sandbox in test mode) that becomes the
 * subscription's, and says where to send the customer; the provider sends them back to
 * /portal/card/callback.
 */
export async function startCardUpdate(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: unknown,
): Promise<string> {
  const scope = scopeOf(session);
  const settings = await settingsFor(() => deps.configurations.find(scope));
  if (!settings.paymentMethodUpdate) throw notOffered('Updating the card');
  const subscription = await ownedSubscription(deps, session, typeof subscriptionId === 'string' ? subscriptionId : '');
  const { authorizationUrl } = await deps.cards.startCardUpdate({
    scope,
    customerId: session.customerId,
    subscriptionId: subscription.id,
    returnUrl: `${deps.settings.publicUrl}/portal/card/callback`,
  });
  return authorizationUrl;
}
