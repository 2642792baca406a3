import { z } from 'zod';
import { HttpError } from '../../../http/http-error';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CancellationPreviewSchema,
  CancelledSubscriptionSchema,
  CancelSubscriptionBody,
  CreateSubscriptionBody,
  ListSubscriptionsQuery,
  SubscriptionIdParams,
  SubscriptionListItemSchema,
  PreviewCancellationBody,
  SubscriptionSchema,
  toRefund,
  toSubscription,
  toSubscriptionListItem,
} from './subscriptions.schemas';

export const subscriptionsResource: Resource = {
  tag: 'Subscriptions',
  prefixes: ['/subscriptions'],
  routes: ({ billing, catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Subscribe a customer with a saved card to a plan',
      description:
        "For a customer whose card was saved by a paid checkout (none -> 400). With a trial (the plan's, or " +
        '`trial_period_days`) it starts `TRIALING` and charges nothing; otherwise the first period is charged ' +
        'now: a failed charge is a 402 and nothing is created. An inactive plan -> 400.',
      auth: 'apiKey',
      body: CreateSubscriptionBody,
      errors: [400, 402, 403, 404],
      response: { status: 201, description: 'The subscription', schema: SubscriptionSchema },
      async handle({ auth: { apiKey }, body, req }) {
        const scope = scopeOf(apiKey);
        const plan = required((await catalog.getPlan({ scope, planId: body.plan_id })).plan, 'plan');
        if (!plan.isActive) throw new HttpError(400, 'The plan is not active; subscribe to an active plan');
        const { subscription } = await billing.createSubscription({
          scope,
          customerId: body.customer_id,
          plan: {
            planId: plan.id,
            name: plan.name,
            amount: plan.amount,
            currency: plan.currency,
            interval: plan.interval,
            intervalCount: plan.intervalCount,
            trialPeriodDays: plan.trialPeriodDays,
            usageUnitAmount: plan.usageUnitAmount,
          },
          trialPeriodDays: body.trial_period_days,
          billingCycles: body.billing_cycles,
          idempotencyKey: req.idempotencyKey,
          metadata: body.metadata ?? {},
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: 'List subscriptions, newest first',
      auth: 'apiKey',
      query: ListSubscriptionsQuery,
      errors: [400],
      response: {
        status: 200,
        description: 'One page of subscriptions (list view)',
        schema: z.array(SubscriptionListItemSchema),
      },
      async handle({ auth: { apiKey }, query }) {
        const { subscriptions } = await billing.listSubscriptions({
          scope: scopeOf(apiKey),
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
          status: query.status ?? query.status_filter,
          customerId: query.customer_id,
          planId: query.plan_id,
        });
        return subscriptions.map(toSubscriptionListItem);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:subscription_id',
      summary: 'Get a subscription',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The subscription', schema: SubscriptionSchema },
      async handle({ auth: { apiKey }, params }) {
        const { subscription } = await billing.getSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/pause',
      summary: 'Pause a subscription',
      description: '`ACTIVE` or `TRIALING` -> `PAUSED`; nothing is invoiced while paused. Any other state -> 400.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The paused subscription', schema: SubscriptionSchema },
      async handle({ auth: { apiKey }, params }) {
        const { subscription } = await billing.pauseSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/resume',
      summary: 'Resume a paused subscription',
      description:
        'A new period starts now and is charged at once: `ACTIVE` when the charge succeeds, `PAST_DUE` ' +
        '(dunning retries) when it fails; both answer 200. A subscription that is not paused -> 400.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The resumed subscription', schema: SubscriptionSchema },
      async handle({ auth: { apiKey }, params }) {
        const { subscription } = await billing.resumeSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/cancel',
      summary: 'Cancel a subscription now or at the end of its period',
      description:
        'Now: any non-final state -> `CANCELLED` (`cancelled_by` `MERCHANT`), and the cancellation policy ' +
        '(`policy_id`, else the default one) refunds part of the current period through the payment provider; ' +
        "the refund is recorded on the period's invoice (`amount_refunded`). With `at_period_end`: " +
        '`cancel_at_period_end` becomes true and the subscription ends with its current period. ' +
        '`refund` is what the cancellation refunded (null when no policy applies, and always at period end; ' +
        'amount 0 with `id` null when the policy gives nothing back). A cancelled or expired subscription ' +
        "-> 400, so a subscription is refunded once. An unknown `policy_id` -> 404, another project's -> 403.",
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: CancelSubscriptionBody,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The subscription and its refund', schema: CancelledSubscriptionSchema },
      async handle({ auth: { apiKey }, params, body, req }) {
        const { subscription, refund } = await billing.cancelSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          atPeriodEnd: body.at_period_end,
          policyId: body.policy_id,
          reason: body.reason,
          cancelledBy: 'MERCHANT',
          idempotencyKey: req.idempotencyKey,
        });
        return { ...toSubscription(required(subscription, 'subscription')), refund: toRefund(refund) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/cancel/preview',
      summary: 'Preview the refund of cancelling a subscription',
      description:
        'What `POST /subscriptions/{id}/cancel` with the same `at_period_end` and `policy_id` would refund right ' +
        'now, changing nothing: `refund` has `id` null and `status` `PENDING`; null when no policy applies and ' +
        'at period end. Errors as the cancel.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: PreviewCancellationBody,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The refund the cancel would give', schema: CancellationPreviewSchema },
      async handle({ auth: { apiKey }, params, body }) {
        const { refund } = await billing.previewCancellation({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          atPeriodEnd: body.at_period_end,
          policyId: body.policy_id,
        });
        return { refund: toRefund(refund) };
      },
    }),
  ],
};
