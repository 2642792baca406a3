import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { DomainError, type ProjectScope } from '@billing/platform';
import {
  normalizeCouponCode,
  redemptionRefusal,
  redemptionRefused,
  snapshotOf,
  type CouponSnapshot,
} from '../../domain/coupon-rules';
import type { CatalogDeps } from '../../catalog-deps';

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
 * caller's transaction when given (a checkout session is created with its redemption, or not
 * at all), else in one of its own.
 *
 * Idempotent per (coupon, key): the key's row in coupon_redemptions is claimed first (INSERT ...
 * ON CONFLICT DO NOTHING; a concurrent claim of the same key waits for this one). An active row
 * answers the same terms again; a released one counts anew. The count itself is one conditional
 * UPDATE (CouponRepository.countRedemption), never read-then-write, so times_redeemed never
 * passes max_redemptions. Any refusal rolls the claim back with everything else.
 */
export async function redeemCoupon(
  deps: CatalogDeps,
  scope: ProjectScope,
  request: RedemptionRequest,
  outer?: Transaction,
): Promise<Redemption> {
  const key = request.redemptionKey.trim();
  if (!key || key.length > MAX_KEY_LENGTH) {
    throw DomainError.invalid([
      { loc: ['redemption_key'], msg: `String should have 1 to ${MAX_KEY_LENGTH} characters`, type: 'value_error' },
    ]);
  }
  const redeem = async (transaction: Transaction): Promise<Redemption> => {
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
  };
  return outer ? redeem(outer) : deps.sequelize.transaction(redeem);
}

/**
 * Gives back the redemption made with `key` (what it was for did not happen): the coupon's
 * count goes down with it. Idempotent: nothing to give back answers 0.
 */
export async function releaseCouponRedemption(
  deps: CatalogDeps,
  scope: ProjectScope,
  key: string,
  outer?: Transaction,
): Promise<number> {
  const release = async (transaction: Transaction) =>
    deps.coupons.release(scope, key, await deps.clocks.now(scope, transaction), transaction);
  return outer ? release(outer) : deps.sequelize.transaction(release);
}
