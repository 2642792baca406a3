import type { ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../catalog-deps';
import { createWorkflow, type WorkflowRun } from './create-workflow';
import { applySubscriptionDiscountStep, getSubscriptionStep } from './steps/billing.steps';
import { redeemCouponStep } from './steps/redeem-coupon.step';

export interface ApplyCouponToSubscriptionInput {
  scope: ProjectScope;
  subscriptionId: string;
  /** As the customer typed it. */
  couponCode: string;
  apiKeyId: string;
  idempotencyKey?: string;
}

/**
 * `POST /subscriptions/{id}/discount` (docs/api-behaviour.md §19):
 * 1. read the subscription in billing: its plan and currency are what the coupon must apply to;
 * 2. redeem coupon; compensation: the redemption is given back;
 * 3. apply the discount in billing, replacing the subscription's. An answer that means nothing
 *    was applied (a CANCELLED or EXPIRED subscription: 400) compensates step 2.
 */
export const applyCouponToSubscriptionWorkflow = createWorkflow(
  'apply-coupon-to-subscription',
  async (input: ApplyCouponToSubscriptionInput, run: WorkflowRun<CatalogDeps>) => {
    const { scope } = input;
    const subscription = await run.step(getSubscriptionStep, { scope, subscriptionId: input.subscriptionId });
    const coupon = await run.step(redeemCouponStep, {
      scope,
      code: input.couponCode,
      purpose: `discount:${subscription.id}`,
      apiKeyId: input.apiKeyId,
      idempotencyKey: input.idempotencyKey,
      planId: subscription.planId,
      currency: subscription.currency,
    });
    return run.step(applySubscriptionDiscountStep, { scope, subscriptionId: subscription.id, coupon });
  },
);
