import { z } from 'zod';
import { HttpError } from '../../../http/http-error';
import { defineRoute, type Resource } from '../../../http/route';
import type { CatalogClient } from '../../../clients/catalog.client';
import { planSnapshotOf } from '@billing/proto';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import {
  ApplyDiscountBody,
  CancellationPreviewSchema,
  cancelledSubscriptionExample,
  CancelledSubscriptionSchema,
  CancelSubscriptionBody,
  ChangePlanBody,
  CreateSubscriptionBody,
  discountedSubscriptionExample,
  ListSubscriptionsQuery,
  planChangedSubscriptionExample,
  PlanChangedSubscriptionSchema,
  planChangePreviewExample,
  PlanChangePreviewSchema,
  PreviewCancellationBody,
  refundExample,
  subscriptionExample,
  SubscriptionIdParams,
  subscriptionListItemExample,
  SubscriptionListItemSchema,
  SubscriptionSchema,
  toPlanChangePreview,
  toRefund,
  toSubscription,
  toSubscriptionListItem,
  UpdateSubscriptionBody,
} from './subscriptions.schemas';
import { toInvoice } from '../invoices/invoices.schemas';

const NOT_FOUND = { 403: 'Subscription belongs to another project', 404: 'Subscription not found' };

/**
 * The plan as catalog has it now, as billing keeps it on a subscription (a snapshot): 404/403 as
 * catalog answers, 400 for an inactive plan.
 */
async function activePlanSnapshot(catalog: CatalogClient, scope: ReturnType<typeof scopeOf>, planId: string) {
  const plan = required((await catalog.getPlan({ scope, planId })).plan, 'plan');
  if (!plan.isActive) throw new HttpError(400, 'The plan is not active; choose an active plan');
  return planSnapshotOf(plan);
}

/** What a plan-change request says, as billing takes it (the plan read from catalog). */
async function planChangeOf(
  catalog: CatalogClient,
  scope: ReturnType<typeof scopeOf>,
  subscriptionId: string,
  body: z.output<typeof ChangePlanBody>,
) {
  return {
    scope,
    subscriptionId,
    plan: await activePlanSnapshot(catalog, scope, body.plan_id),
    proration: body.proration,
    atPeriodEnd: body.at_period_end,
  };
}

const PLAN_CHANGE_ERRORS = {
  400: 'The plan is billed in USD and the subscription in NGN; choose a plan in NGN',
  403: 'Subscription belongs to another project',
  404: 'Plan not found',
} as const;

export const subscriptionsResource: Resource = {
  tag: {
    name: 'Subscriptions',
    description:
      'A customer on a plan, billed every period until cancelled (or for `billing_cycles` periods). Statuses: ' +
      'TRIALING (free trial), ACTIVE, PAST_DUE (a charge failed; dunning retries), PAUSED, and the final ' +
      'CANCELLED and EXPIRED (a fixed term that ran out). Most are created by a paid checkout; a customer with a ' +
      'saved card can also be subscribed directly. Every change sends a `subscription.*` webhook event.',
  },
  prefixes: ['/subscriptions'],
  routes: ({ billing, catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createSubscription',
      summary: 'Subscribe a customer with a saved card to a plan',
      description:
        "For a customer whose card was saved by a paid checkout (none: 400). With a trial (the plan's, or " +
        '`trial_period_days`) it starts TRIALING and charges nothing until the trial ends; otherwise the first ' +
        'period is charged now: a declined charge is a 402 and nothing is created. Send an `Idempotency-Key`: a ' +
        'retry after a lost answer returns the first subscription instead of charging twice (503 while the first ' +
        'charge is still in progress). An inactive plan is a 400. With `coupon_code` the coupon is redeemed ' +
        'and its discount starts with the first invoice (the one charged now, or the first after the trial); ' +
        'a code that cannot be redeemed (unknown, inactive, expired, exhausted, not for this plan, another ' +
        'currency) is a 400 saying which, and a declined first charge gives the redemption back. `tax_rate_ids` ' +
        '(at most 5, else 422) taxes its invoices, the first one included: an unknown rate is a 404, another ' +
        "project's a 403, an inactive one a 400.",
      auth: 'apiKey',
      body: CreateSubscriptionBody,
      bodyExample: {
        customer_id: EXAMPLE.customerId,
        plan_id: EXAMPLE.planId,
        trial_period_days: 0,
        metadata: { signup_source: 'upgrade-banner' },
        coupon_code: 'WELCOME25',
        tax_rate_ids: [EXAMPLE.taxRateId],
      },
      errors: {
        400: 'The customer has no saved card; it is saved when the customer pays a checkout',
        402: 'Declined',
        403: 'Customer belongs to another project',
        404: 'Plan not found',
      },
      response: { status: 201, description: 'The subscription', schema: SubscriptionSchema },
      responseExample: {
        ...discountedSubscriptionExample,
        metadata: { signup_source: 'upgrade-banner' },
        tax_rate_ids: [EXAMPLE.taxRateId],
      },
      async handle({ auth: { apiKey }, body, req }) {
        const scope = scopeOf(apiKey);
        const subscription = {
          scope,
          customerId: body.customer_id,
          plan: await activePlanSnapshot(catalog, scope, body.plan_id),
          trialPeriodDays: body.trial_period_days,
          billingCycles: body.billing_cycles,
          idempotencyKey: req.idempotencyKey,
          metadata: body.metadata ?? {},
          // Absent or null: the plan's rates (the request's tax_rates left unset).
          taxRates: body.tax_rate_ids ? { fromPlan: false, ids: body.tax_rate_ids } : undefined,
        };
        // With a coupon, catalog runs the workflow: redeem, create in billing, give the redemption
        // back when nothing was created (docs/api-behaviour.md §19).
        const created = body.coupon_code
          ? await catalog.subscribeWithCoupon({
              subscription,
              couponCode: body.coupon_code,
              caller: { apiKeyId: apiKey.keyId, requestId: req.requestId },
            })
          : await billing.createSubscription(subscription);
        return toSubscription(required(created.subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listSubscriptions',
      summary: 'List subscriptions, newest first',
      description:
        'The list view (no metadata). Filter by `status`, `customer_id` or `plan_id`. Pages of `limit` (default ' +
        '20, at most 100); the next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListSubscriptionsQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: {
        status: 200,
        description: 'One page of subscriptions (list view)',
        schema: z.array(SubscriptionListItemSchema),
      },
      responseExample: [subscriptionListItemExample],
      async handle({ auth: { apiKey }, query }) {
        const { subscriptions } = await billing.listSubscriptions({
          scope: scopeOf(apiKey),
          page: pageOf(query),
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
      operationId: 'getSubscription',
      summary: 'Get a subscription',
      description:
        'Its status, current period, trial end, fixed term and metadata. Its invoices are listed by ' +
        '`GET /api/v1/invoices?subscription_id=`.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The subscription', schema: SubscriptionSchema },
      responseExample: subscriptionExample,
      async handle({ auth: { apiKey }, params }) {
        const { subscription } = await billing.getSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:subscription_id',
      operationId: 'updateSubscription',
      summary: "Change a subscription's tax rates",
      description:
        '`tax_rate_ids` replaces the rates its invoices get (at most 5, else 422): `[]` = no tax, `null` = its ' +
        "plan's again (the plan's rates as they were when the subscription took that plan). It applies to the invoices made from now on; issued " +
        'invoices never change. An unknown rate is a 404, another project\u2019s a 403, and an inactive one a 400 ' +
        '(a rate deactivated after it was attached may stay: it keeps applying). A cancelled or expired ' +
        'subscription is a 400.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: UpdateSubscriptionBody,
      bodyExample: { tax_rate_ids: [EXAMPLE.taxRateId] },
      errors: {
        400: "The tax rate VAT (3d1f0b6e-8c2a-4e57-9b1d-5f7a2c9e4b10) is not active; an inactive rate can't be newly attached",
        ...NOT_FOUND,
      },
      response: { status: 200, description: 'The subscription with its tax rates', schema: SubscriptionSchema },
      responseExample: { ...subscriptionExample, tax_rate_ids: [EXAMPLE.taxRateId] },
      async handle({ auth: { apiKey }, params, body }) {
        const { subscription } = await billing.updateSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          taxRates:
            body.tax_rate_ids === undefined
              ? undefined
              : { fromPlan: body.tax_rate_ids === null, ids: body.tax_rate_ids ?? [] },
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/pause',
      operationId: 'pauseSubscription',
      summary: 'Pause a subscription',
      description:
        'ACTIVE or TRIALING -> PAUSED: nothing is invoiced or charged while paused, and `subscription.paused` is ' +
        'sent. Any other status is a 400.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: { 400: 'A past due subscription cannot pause', ...NOT_FOUND },
      response: { status: 200, description: 'The paused subscription', schema: SubscriptionSchema },
      responseExample: { ...subscriptionExample, status: 'PAUSED' },
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
      operationId: 'resumeSubscription',
      summary: 'Resume a paused subscription',
      description:
        'A new period starts now and is charged at once: ACTIVE (`subscription.resumed`) when the charge ' +
        'succeeds, PAST_DUE (`subscription.past_due`, dunning retries) when it fails; both answer 200, so read ' +
        '`status`. A subscription that is not paused is a 400.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: { 400: 'A cancelled subscription cannot resume paid', ...NOT_FOUND },
      response: { status: 200, description: 'The resumed subscription', schema: SubscriptionSchema },
      responseExample: {
        ...subscriptionExample,
        current_period_start: '2026-03-20T10:00:00.000Z',
        current_period_end: '2026-04-20T10:00:00.000Z',
      },
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
      path: '/:subscription_id/discount',
      operationId: 'applySubscriptionDiscount',
      summary: "Apply a coupon to a subscription's coming invoices",
      description:
        'Redeems `coupon_code` and gives the subscription its discount, replacing the one it had. It covers ' +
        'the next invoices (the next renewal first): ONCE one, REPEATING `duration_in_periods`, FOREVER all; ' +
        'nothing already invoiced changes. A code that cannot be redeemed (unknown, inactive, expired, ' +
        'exhausted, not for this plan, another currency) is a 400 saying which; so is a cancelled or expired ' +
        'subscription (and the redemption is then given back).',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: ApplyDiscountBody,
      bodyExample: { coupon_code: 'WELCOME25' },
      errors: { 400: 'The coupon code WELCOME25 does not exist', ...NOT_FOUND },
      response: { status: 200, description: 'The subscription with its discount', schema: SubscriptionSchema },
      responseExample: discountedSubscriptionExample,
      async handle({ auth: { apiKey }, params, body, req }) {
        // Catalog runs the workflow: read the subscription, redeem for its plan, apply the discount
        // in billing, give the redemption back when nothing was applied (docs/api-behaviour.md §19).
        const { subscription } = await catalog.applyCouponToSubscription({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
          couponCode: body.coupon_code,
          idempotencyKey: req.idempotencyKey,
          caller: { apiKeyId: apiKey.keyId, requestId: req.requestId },
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:subscription_id/discount',
      operationId: 'removeSubscriptionDiscount',
      summary: "Remove a subscription's discount",
      description:
        'The coming invoices are billed at full price; nothing already invoiced changes and the coupon keeps ' +
        'its redemption count. Answers the subscription (200), with `discount` null; idempotent.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The subscription without a discount', schema: SubscriptionSchema },
      responseExample: subscriptionExample,
      async handle({ auth: { apiKey }, params }) {
        const { subscription } = await billing.removeSubscriptionDiscount({
          scope: scopeOf(apiKey),
          subscriptionId: params.subscription_id,
        });
        return toSubscription(required(subscription, 'subscription'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/cancel',
      operationId: 'cancelSubscription',
      summary: 'Cancel a subscription now or at the end of its period',
      description:
        'Now: any non-final state -> `CANCELLED` (`cancelled_by` `MERCHANT`), and the cancellation policy ' +
        '(`policy_id`, else the default one) refunds part of the current period through the payment provider; ' +
        "the refund is recorded on the period's invoice (`amount_refunded`). With `at_period_end`: " +
        '`cancel_at_period_end` becomes true and the subscription ends with its current period. ' +
        '`refund` is what the cancellation refunded (null when no policy applies, and always at period end; ' +
        'amount 0 with `id` null when the policy gives nothing back). A cancelled or expired subscription ' +
        "-> 400, so a subscription is refunded once. An unknown `policy_id` -> 404, another project's -> 403. " +
        'Sends `subscription.cancelled` (with the refund) and, once the provider took the refund, ' +
        '`refund.processed`. An `Idempotency-Key` makes a retry return the first answer without refunding twice.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: CancelSubscriptionBody,
      bodyExample: { at_period_end: false, policy_id: EXAMPLE.policyId, reason: 'Moving abroad' },
      errors: { 400: 'A cancelled subscription cannot cancel', ...NOT_FOUND },
      response: { status: 200, description: 'The subscription and its refund', schema: CancelledSubscriptionSchema },
      responseExample: cancelledSubscriptionExample,
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
      operationId: 'previewSubscriptionCancellation',
      summary: 'Preview the refund of cancelling a subscription',
      description:
        'What `POST /subscriptions/{id}/cancel` with the same `at_period_end` and `policy_id` would refund right ' +
        'now, changing nothing: `refund` has `id` null and `status` `PENDING`; null when no policy applies and ' +
        'at period end. Errors as the cancel.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: PreviewCancellationBody,
      bodyExample: { at_period_end: false, policy_id: EXAMPLE.policyId },
      errors: { 400: 'A cancelled subscription cannot cancel', ...NOT_FOUND },
      response: { status: 200, description: 'The refund the cancel would give', schema: CancellationPreviewSchema },
      responseExample: { refund: { ...refundExample, id: null } },
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
    defineRoute({
      method: 'post',
      path: '/:subscription_id/change-plan',
      operationId: 'changeSubscriptionPlan',
      summary: 'Move a subscription to another plan (upgrade or downgrade)',
      description:
        'For an ACTIVE or TRIALING subscription (any other status: 400), to an active plan of the same project, ' +
        'mode and currency (another currency, or the plan it is already on: 400). ' +
        '`at_period_end: true`: nothing is billed now; `pending_plan_id` and `pending_plan_change_at` (the end of ' +
        'the current period) show the change, and the renewal then bills the new plan; a later change replaces it, ' +
        'and `at_period_end: true` with the current plan drops it. Now, with the same interval: the period stays; ' +
        '`IMMEDIATE` makes an invoice at once with two PRORATION lines, computed in seconds and rounded once each: ' +
        '"Unused time on <old plan>" (negative) and "Remaining time on <new plan>", plus, for a metered plan, the ' +
        'usage up to now. A positive total is charged to the saved card now: declined -> 402 and nothing changes (the ' +
        "invoice is VOID); a negative total goes to the customer's balance and the invoice is PAID at 0. `NONE`: the " +
        'plan changes now and its price applies from the next renewal, with no invoice. Now, with another interval: ' +
        "a new period starts now (the billing anchor moves) and the invoice bills the new plan's full period, less " +
        'the unused time of the old one with `IMMEDIATE`. During a trial the plan changes, the trial keeps its end ' +
        'and nothing is billed. `latest_invoice` is the invoice the change made (null when none). Sends ' +
        '`subscription.updated` (with `previous_plan_id`) and the invoice events. Send an `Idempotency-Key`: a retry ' +
        'returns the first answer without charging twice. A 503 while the period just ended is being renewed.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: ChangePlanBody,
      bodyExample: { plan_id: EXAMPLE.upgradePlanId, proration: 'IMMEDIATE', at_period_end: false },
      errors: { ...PLAN_CHANGE_ERRORS, 402: 'Declined' },
      response: {
        status: 200,
        description: 'The subscription on its new plan (or with the pending change), and the invoice made',
        schema: PlanChangedSubscriptionSchema,
      },
      responseExample: planChangedSubscriptionExample,
      async handle({ auth: { apiKey }, params, body, req }) {
        const { subscription, latestInvoice } = await billing.changePlan({
          ...(await planChangeOf(catalog, scopeOf(apiKey), params.subscription_id, body)),
          idempotencyKey: req.idempotencyKey,
        });
        return {
          ...toSubscription(required(subscription, 'subscription')),
          latest_invoice: latestInvoice ? toInvoice(latestInvoice) : null,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:subscription_id/change-plan/preview',
      operationId: 'previewSubscriptionPlanChange',
      summary: 'Preview a plan change',
      description:
        'What `POST /subscriptions/{id}/change-plan` with the same body would do right now, changing nothing: the ' +
        "lines of the invoice it would make and its money (`subtotal`, the subscription's `discount`, the " +
        "`credit_applied` from the customer's balance, the `amount_due` the card would be charged, and the " +
        '`credit_to_balance` a downgrade would give), its tax (`tax`, `total_excluding_tax`, `total_tax_amounts`, ' +
        "`tax_note`) and total (`amount`), with the invoice's period. No lines and zeros when the change " +
        'makes no invoice (at period end, `NONE` with the same interval, during a trial); the period is then the ' +
        'current one. Proration is counted in whole seconds, so a change made within the same second as its ' +
        'preview gives the same lines and amounts. Errors as the change.',
      auth: 'apiKey',
      params: SubscriptionIdParams,
      body: ChangePlanBody,
      bodyExample: { plan_id: EXAMPLE.upgradePlanId, proration: 'IMMEDIATE', at_period_end: false },
      errors: PLAN_CHANGE_ERRORS,
      response: { status: 200, description: 'What the change would invoice now', schema: PlanChangePreviewSchema },
      responseExample: planChangePreviewExample,
      async handle({ auth: { apiKey }, params, body }) {
        return toPlanChangePreview(
          await billing.previewPlanChange(await planChangeOf(catalog, scopeOf(apiKey), params.subscription_id, body)),
        );
      },
    }),
  ],
};
