import type { ProjectScope } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CatalogDeps } from '../catalog-deps';
import { createWorkflow, type WorkflowRun } from './create-workflow';
import { createSubscriptionStep } from './steps/billing.steps';
import { redeemCouponStep } from './steps/redeem-coupon.step';

export interface SubscribeWithCouponInput {
  /** As billing takes it, with the plan the caller read; its coupon is set by the workflow. */
  subscription: billingV1.CreateSubscriptionRequest & { scope: ProjectScope; plan: billingV1.PlanSnapshot };
  /** As the customer typed it. */
  couponCode: string;
  apiKeyId: string;
}

/**
 * `POST /subscriptions` with `coupon_code` (docs/api-behaviour.md §19):
 * 1. redeem coupon: a code that cannot be redeemed is refused before anything is created;
 *    compensation: the redemption is given back;
 * 2. create the subscription in billing with the redeemed terms, its discount starting with the
 *    first invoice. An answer that means nothing was created (a declined first charge: 402)
 *    compensates step 1.
 */
export const subscribeWithCouponWorkflow = createWorkflow(
  'subscribe-with-coupon',
  async ({ subscription, couponCode, apiKeyId }: SubscribeWithCouponInput, run: WorkflowRun<CatalogDeps>) => {
    const coupon = await run.step(redeemCouponStep, {
      scope: subscription.scope,
      code: couponCode,
      purpose: 'subscription',
      apiKeyId,
      idempotencyKey: subscription.idempotencyKey,
      planId: subscription.plan.planId,
      currency: subscription.plan.currency,
    });
    return run.step(createSubscriptionStep, { ...subscription, coupon });
  },
);
