import type { NewEvent } from '@billing/platform';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { PlanModel } from '../db/models/plan.model';
import { checkoutSessionResource } from '../read-models/checkout-session.read-model';

/**
 * The one place catalog builds checkout.session.* events (the catalogue of docs/api-behaviour.md
 * §12); eslint.config.js refuses an event type written anywhere else in the service. `data` is
 * the session as the API shows it. The caller records the envelope in the transaction that moves
 * the session out of PENDING (moveOutOfPending).
 */

type SessionPlan = Pick<PlanModel, 'amount' | 'currency'>;

function checkoutSessionEvent(
  type: string,
  session: CheckoutSessionModel,
  plan: SessionPlan,
  publicUrl: string,
  occurredAt: Date,
): NewEvent<unknown> {
  return {
    type,
    data: checkoutSessionResource(session, plan, publicUrl),
    projectId: session.projectId,
    livemode: session.livemode,
    occurredAt,
  };
}

export const checkoutSessionEvents = {
  completed: (session: CheckoutSessionModel, plan: SessionPlan, publicUrl: string, at: Date) =>
    checkoutSessionEvent('checkout.session.completed', session, plan, publicUrl, at),
  expired: (session: CheckoutSessionModel, plan: SessionPlan, publicUrl: string, at: Date) =>
    checkoutSessionEvent('checkout.session.expired', session, plan, publicUrl, at),
};
