import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type Logger } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CatalogClient } from '../../../clients/catalog.client';
import { required } from '../common.schemas';

/**
 * Answers that mean the call changed nothing: a redemption made for it is given back. Others
 * (UNAVAILABLE, a deadline, INTERNAL) leave the outcome unknown, so the redemption stays: a retry
 * with the same Idempotency-Key finds it again and counts nothing more (docs/api-behaviour.md §19).
 */
const NOTHING_DONE = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.ALREADY_EXISTS,
  GrpcStatus.ABORTED,
]);

export interface CouponUse {
  scope: { projectId: string; merchantId: string; livemode: boolean };
  /** The code as the client sent it. */
  code: string;
  /** What the redemption is for, e.g. `subscription` or `discount:<subscription id>`. */
  purpose: string;
  /** The API key and Idempotency-Key of the request: a retry with them redeems nothing more. */
  keyId: string;
  idempotencyKey?: string;
  /** The plan and currency the discount applies to (catalog checks plan_ids and amount_off's currency). */
  planId: string;
  currency: string;
  /** The request's X-Request-Id, for the log line of a redemption that could not be given back. */
  requestId: string;
}

/**
 * Redeems a coupon code at catalog (which counts it atomically, or refuses it: 400 with the
 * reason), then runs `use` with its terms (billing creating the subscription or applying the
 * discount). When `use` fails in a way that changed nothing (a declined first charge: nothing is
 * created) and this very request made the redemption, it is given back, so times_redeemed counts
 * only what happened, and never less.
 *
 * The gateway does this rather than billing because it already reads the plan from catalog and
 * hands billing a snapshot of what was sold; billing never calls catalog. The redemption key is the
 * request's Idempotency-Key under its API key, so a retried request finds its redemption again.
 */
export async function withRedeemedCoupon<T>(
  { catalog, logger }: { catalog: CatalogClient; logger: Logger },
  use: CouponUse,
  apply: (coupon: billingV1.CouponSnapshot) => Promise<T>,
): Promise<T> {
  const redemptionKey = use.idempotencyKey
    ? `${use.purpose}:${use.keyId}:${use.idempotencyKey}`
    : `${use.purpose}:${randomUUID()}`;
  const { coupon, created } = await catalog.redeemCoupon({
    scope: use.scope,
    code: use.code,
    redemptionKey,
    planId: use.planId,
    currency: use.currency,
  });
  try {
    return await apply(required(coupon, 'coupon'));
  } catch (err) {
    // Only a redemption this request made is given back: one an earlier request with the same
    // Idempotency-Key made belongs to that request, whose outcome this answer does not tell (a
    // reused key answered with a conflict, say, after the first request created the discount).
    if (created && isGrpcServiceError(err) && NOTHING_DONE.has(err.code)) {
      // The caller's error is the answer. A release that failed, or whose deadline passed (catalog
      // may still run it), may leave one redemption counted: support can check and give it back.
      await catalog.releaseCouponRedemption({ scope: use.scope, redemptionKey }).catch((releaseErr: unknown) => {
        logger.error(
          {
            err: releaseErr,
            request_id: use.requestId,
            project_id: use.scope.projectId,
            coupon_code: use.code,
            redemption_key: redemptionKey,
          },
          'coupon redemption not given back after a call that changed nothing; times_redeemed may still count it',
        );
      });
    }
    throw err;
  }
}
