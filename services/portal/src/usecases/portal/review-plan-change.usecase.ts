import type { billingV1, catalogV1 } from '@billing/proto';
import { chosenPlan } from '../../actions/chosen-plan';
import { scopeOf } from '../../browser-sessions/browser-session';
import { ownedSubscription } from '../../browser-sessions/owned-subscription';
import { planSnapshotOf } from '@billing/proto';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

export interface PlanChangeReview {
  subscription: billingV1.Subscription;
  plan: catalogV1.Plan;
  /** The §18 preview, as POST /subscriptions/{id}/change-plan/preview answers it. */
  preview: billingV1.PreviewPlanChangeResponse;
}

/** "Change plan" pressed with a plan: billing's PreviewPlanChange with the configuration's proration, now. */
export async function reviewPlanChange(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: string,
  planId: unknown,
): Promise<PlanChangeReview> {
  const subscription = await ownedSubscription(deps, session, subscriptionId);
  const { plan, settings } = await chosenPlan(deps, session, planId);
  const preview = await deps.billing.previewPlanChange({
    scope: scopeOf(session),
    subscriptionId: subscription.id,
    plan: planSnapshotOf(plan),
    proration: settings.planChangeProration,
    atPeriodEnd: false,
  });
  return { subscription, plan, preview };
}
