import { idempotencyKeyOf } from '../../actions/action-rules';
import { chosenPlan } from '../../actions/chosen-plan';
import { scopeOf } from '../../browser-sessions/browser-session';
import { ownedSubscription } from '../../browser-sessions/owned-subscription';
import { planSnapshotOf } from '@billing/proto';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * "Confirm" of "Change plan": billing's ChangePlan, as the API's change-plan calls it (the plan
 * as catalog has it now, the configuration's proration, now), so the same proration invoice,
 * charge, events and webhooks follow. A declined charge changes nothing (billing's 402).
 */
export async function changePlan(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: string,
  planId: unknown,
  confirmationId: unknown,
): Promise<void> {
  const subscription = await ownedSubscription(deps, session, subscriptionId);
  const { plan, settings } = await chosenPlan(deps, session, planId);
  await deps.billing.changePlan({
    scope: scopeOf(session),
    subscriptionId: subscription.id,
    plan: planSnapshotOf(plan),
    proration: settings.planChangeProration,
    atPeriodEnd: false,
    idempotencyKey: idempotencyKeyOf(session.id, confirmationId),
  });
}
