import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, type ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../catalog-deps';
import {
  normalizeCouponCode,
  redemptionRefusal,
  redemptionRefused,
  snapshotOf,
  type CouponSnapshot,
} from '../domain/coupon-rules';

export interface RedemptionRequest {
  /** As the customer typed it. */
  code: string;
  /** What the redemption is for; the same key redeems a coupon once. */
  redemptionKey: string;
  planId: string;
  currency: string;
}

export interface Redemption {
  coupon: CouponSnapshot;
  /** False when the key had redeemed the coupon already (nothing counted now). */
  created: boolean;
}

const MAX_KEY_LENGTH = 300;

/**
 * Counts one redemption of a code and answers its terms (docs/api-behaviour.md §19), in the
 * caller's transaction: gRPC `RedeemCoupon` opens one of its own, a checkout session is created
 * with its redemption or not at all, a promotion code replaces the one applied before.
 *
 * Idempotent per (coupon, key): the key's row in coupon_redemptions is claimed first (INSERT ...
 * ON CONFLICT DO NOTHING; a concurrent claim of the same key waits for this one). An active row
 * answers the same terms again; a released one counts anew. The count itself is one conditional
 * UPDATE (CouponRepository.countRedemption), never read-then-write, so times_redeemed never
 * passes max_redemptions. Any refusal rolls the claim back with everything else.
 */
export async function redeemCode(
  deps: CatalogDeps,
  scope: ProjectScope,
  request: RedemptionRequest,
  transaction: Transaction,
): Promise<Redemption> {
  const key = request.redemptionKey.trim();
  if (!key || key.length > MAX_KEY_LENGTH) {
    throw DomainError.invalid([
      { loc: ['redemption_key'], msg: `String should have 1 to ${MAX_KEY_LENGTH} characters`, type: 'value_error' },
    ]);
  }
  const coupon = await deps.coupons.findByCode(scope, normalizeCouponCode(request.code), transaction);
  if (!coupon) throw redemptionRefused('unknown', request.code);
  const now = await deps.clocks.now(scope, transaction);
  const claimed = await deps.coupons.claimRedemption(coupon.id, scope, key, randomUUID(), now, transaction);
  if (!claimed && (await deps.coupons.lockRedemption(coupon.id, key, transaction)) === 'ACTIVE') {
    return { coupon: snapshotOf(coupon), created: false };
  }
  const target = { planId: request.planId, currency: request.currency, now };
  const refusal = redemptionRefusal(coupon, target);
  if (refusal) throw redemptionRefused(refusal, coupon.code, coupon, target);
  const counted = await deps.coupons.countRedemption(coupon.id, now, transaction);
  if (!counted) {
    // Another redemption took the last one (or a deactivation came) after the read above.
    await deps.coupons.refresh(coupon, transaction);
    throw redemptionRefused(coupon.isActive ? 'exhausted' : 'inactive', coupon.code, coupon, target);
  }
  if (!claimed) await deps.coupons.reactivateRedemption(coupon.id, key, transaction);
  return { coupon: snapshotOf(counted), created: true };
}
