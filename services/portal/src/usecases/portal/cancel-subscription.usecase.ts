import { cancellationOf, idempotencyKeyOf } from '../../actions/action-rules';
import { scopeOf } from '../../browser-sessions/browser-session';
import { ownedSubscription } from '../../browser-sessions/owned-subscription';
import { settingsFor } from '../../configurations/settings-of';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * "Confirm" of "Cancel subscription": billing's CancelSubscription, as the API's cancel calls it
 * (the same policy, refund, events and webhooks), by the customer, at the period's end or now as
 * the configuration says.
 */
export async function cancelSubscription(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: string,
  confirmationId: unknown,
): Promise<{ atPeriodEnd: boolean }> {
  const scope = scopeOf(session);
  const subscription = await ownedSubscription(deps, session, subscriptionId);
  const { atPeriodEnd } = cancellationOf(await settingsFor(() => deps.configurations.find(scope)));
  await deps.billing.cancelSubscription({
    scope,
    subscriptionId: subscription.id,
    atPeriodEnd,
    cancelledBy: 'CUSTOMER',
    idempotencyKey: idempotencyKeyOf(session.id, confirmationId),
  });
  return { atPeriodEnd };
}
