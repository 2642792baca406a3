import type { billingV1 } from '@billing/proto';
import { cancellationOf } from '../../actions/action-rules';
import { scopeOf } from '../../browser-sessions/browser-session';
import { ownedSubscription } from '../../browser-sessions/owned-subscription';
import { settingsFor } from '../../configurations/settings-of';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

export interface CancellationReview {
  subscription: billingV1.Subscription;
  atPeriodEnd: boolean;
  /** The policy's refund quote (§10), as POST /subscriptions/{id}/cancel/preview answers it; null when none applies. */
  refund: billingV1.Refund | null;
}

/** "Cancel subscription" pressed: what the cancel would do, from billing's PreviewCancellation. */
export async function reviewCancellation(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: string,
): Promise<CancellationReview> {
  const scope = scopeOf(session);
  const subscription = await ownedSubscription(deps, session, subscriptionId);
  const { atPeriodEnd } = cancellationOf(await settingsFor(() => deps.configurations.find(scope)));
  const { refund } = await deps.billing.previewCancellation({ scope, subscriptionId: subscription.id, atPeriodEnd });
  return { subscription, atPeriodEnd, refund: refund ?? null };
}
