import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import type { CatalogDeps } from '../../catalog-deps';
import { couponSnapshotMessage } from '../../coupon-redemptions/coupon-snapshot-message';
import { redeemCoupon } from '../../usecases/coupons/redeem-coupon.usecase';
import { releaseCouponRedemption } from '../../usecases/coupons/release-coupon-redemption.usecase';
import type { WorkflowStep } from '../create-workflow';

export interface RedeemCouponStepInput {
  scope: ProjectScope;
  /** As the customer typed it. */
  code: string;
  /** What the redemption is for: `subscription`, or `discount:<subscription id>`. */
  purpose: string;
  /** The request's API key and Idempotency-Key: a retry with them redeems nothing more. */
  apiKeyId: string;
  idempotencyKey?: string;
  /** What the coupon must apply to (its plan_ids, and amount_off's currency). */
  planId: string;
  currency: string;
}

/** A redemption this run made, and what names it in the log if it cannot be given back. */
interface RedemptionToGiveBack {
  scope: ProjectScope;
  code: string;
  redemptionKey: string;
}

/**
 * The redemption key of a request (docs/api-behaviour.md §19): its Idempotency-Key under its API
 * key, so that a retried request finds its redemption again instead of counting another; without
 * an Idempotency-Key every request is a redemption of its own.
 */
export function redemptionKeyOf(purpose: string, apiKeyId: string, idempotencyKey: string | undefined): string {
  return idempotencyKey ? `${purpose}:${apiKeyId}:${idempotencyKey}` : `${purpose}:${randomUUID()}`;
}

/**
 * Counts one redemption of the code at once (or refuses it: FAILED_PRECONDITION with the reason)
 * and answers the coupon's terms. Compensation: gives the redemption back, so that
 * times_redeemed counts only what took effect.
 */
export const redeemCouponStep: WorkflowStep<
  RedeemCouponStepInput,
  catalogV1.CouponSnapshot,
  RedemptionToGiveBack,
  CatalogDeps
> = {
  name: 'redeem coupon',
  async invoke(input, { deps }) {
    const redemptionKey = redemptionKeyOf(input.purpose, input.apiKeyId, input.idempotencyKey);
    const { coupon, created } = await redeemCoupon(deps, input.scope, {
      code: input.code,
      redemptionKey,
      planId: input.planId,
      currency: input.currency,
    });
    return {
      output: couponSnapshotMessage(coupon),
      // Only a redemption this run made is given back: one an earlier request with the same
      // Idempotency-Key made belongs to that request, whose outcome this run's answer does not
      // tell (a reused key answered with a conflict, say, after the first request applied it).
      compensateInput: created ? { scope: input.scope, code: input.code, redemptionKey } : undefined,
    };
  },
  compensation: {
    async undo({ scope, redemptionKey }, { deps }) {
      await releaseCouponRedemption(deps, scope, redemptionKey);
    },
    // One redemption may stay counted: support can check and give it back.
    failureMessage:
      'coupon redemption not given back after a call that changed nothing; times_redeemed may still count it',
    logFields: ({ scope, code, redemptionKey }) => ({
      project_id: scope.projectId,
      coupon_code: code,
      redemption_key: redemptionKey,
    }),
  },
};
