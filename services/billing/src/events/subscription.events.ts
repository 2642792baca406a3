import { toMajorUnits, type Context, type NewEvent } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { RefundView } from '../domain/cancellation-refund';
import { subscriptionMrrFact } from '../domain/subscription-mrr';
import type { SubscriptionView } from '../read-models/subscription.read-model';
import { refundEventData } from './refund.events';

/**
 * The one place subscription.* events are built (docs/api-behaviour.md §12): each event type of the
 * resource has its builder here, and the lint rule in eslint.config.js refuses an event type
 * written anywhere else in the service. `data` is what merchants receive in webhooks: snake_case,
 * money in major units, ISO timestamps. Recording stays with the caller, in the transaction of
 * the change (recordEvent / recordEvents of @billing/platform). Every one of them carries, on the
 * envelope's `analytics` (never in `data`, so no webhook or email shows it), the subscription's
 * MRR fact in its state after the change (domain/subscription-mrr.ts, docs/api-behaviour.md §25).
 */

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** subscription.*: the subscription list view + customer_id, plan_id. */
export const subscriptionEventData = (subscription: SubscriptionModel, customerEmail: string) => ({
  id: subscription.id,
  customer_email: customerEmail,
  plan_name: subscription.planName,
  status: subscription.status,
  amount: toMajorUnits(subscription.amount),
  currency: subscription.currency,
  interval: subscription.interval,
  current_period_start: subscription.currentPeriodStart.toISOString(),
  current_period_end: subscription.currentPeriodEnd.toISOString(),
  cancelled_at: iso(subscription.cancelledAt),
  cancel_at_period_end: subscription.cancelAtPeriodEnd,
  cancelled_by: subscription.cancelledBy,
  created_at: subscription.createdAt.toISOString(),
  customer_id: subscription.customerId,
  plan_id: subscription.planId,
});

/**
 * subscription.updated (docs/api-behaviour.md §18): the subscription event data, the plan it was
 * on before this update (the same as plan_id when only a pending change was set or dropped) and
 * the change pending at its period's end, if any.
 */
export const subscriptionUpdatedEventData = (
  subscription: SubscriptionModel,
  customerEmail: string,
  previousPlanId: string,
) => ({
  ...subscriptionEventData(subscription, customerEmail),
  previous_plan_id: previousPlanId,
  pending_plan_id: subscription.pendingPlanId ?? null,
  pending_plan_change_at: iso(subscription.pendingPlanChangeAt ?? null),
});

/** `trace`: the charge a batch records the event for (the active trace otherwise). */
function subscriptionEvent(
  type: string,
  view: SubscriptionView,
  occurredAt: Date,
  data: Record<string, unknown> = subscriptionEventData(view.subscription, view.customerEmail),
  trace?: Context,
): NewEvent<unknown> {
  const { subscription } = view;
  return {
    type,
    data,
    projectId: subscription.projectId,
    livemode: subscription.livemode,
    occurredAt,
    ...(trace ? { trace } : {}),
    analytics: subscriptionMrrFact(subscription, view.nextInvoiceTax),
  };
}

const withData = (view: SubscriptionView, extra: Record<string, unknown>) => ({
  ...subscriptionEventData(view.subscription, view.customerEmail),
  ...extra,
});

export const subscriptionEvents = {
  created: (view: SubscriptionView, at: Date) => subscriptionEvent('subscription.created', view, at),
  renewed: (view: SubscriptionView, at: Date, trace?: Context) =>
    subscriptionEvent('subscription.renewed', view, at, undefined, trace),
  trialWillEnd: (view: SubscriptionView, at: Date) =>
    subscriptionEvent(
      'subscription.trial_will_end',
      view,
      at,
      withData(view, { trial_end: iso(view.subscription.trialEnd) }),
    ),
  pastDue: (view: SubscriptionView, at: Date) => subscriptionEvent('subscription.past_due', view, at),
  paused: (view: SubscriptionView, at: Date) => subscriptionEvent('subscription.paused', view, at),
  resumed: (view: SubscriptionView, at: Date) => subscriptionEvent('subscription.resumed', view, at),
  /** `refund`: what the cancellation refunds under its policy (§16.4); null when nothing. */
  cancelled: (view: SubscriptionView, at: Date, refund: RefundView | null) =>
    subscriptionEvent(
      'subscription.cancelled',
      view,
      at,
      withData(view, { refund: refund && refundEventData(refund) }),
    ),
  expired: (view: SubscriptionView, at: Date) => subscriptionEvent('subscription.expired', view, at),
  /**
   * Internal, never delivered (not in the webhook catalogue, docs/api-behaviour.md §12): the
   * subscription's MRR fact after a change no webhook event announces (a discount applied or
   * removed, its tax rates replaced), so analytics moves its MRR when it changes (§25).
   */
  mrrRevised: (view: SubscriptionView, at: Date) =>
    subscriptionEvent('subscription.mrr_revised', view, at, {
      id: view.subscription.id,
      customer_id: view.subscription.customerId,
    }),
  /** §18: with the plan it was on before this update. */
  updated: (view: SubscriptionView, at: Date, previousPlanId: string) =>
    subscriptionEvent(
      'subscription.updated',
      view,
      at,
      subscriptionUpdatedEventData(view.subscription, view.customerEmail, previousPlanId),
    ),
};
