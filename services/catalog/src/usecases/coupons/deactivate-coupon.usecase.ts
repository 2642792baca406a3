import type { ProjectScope } from '@billing/platform';
import type { CouponModel } from '../../db/models/coupon.model';
import type { CatalogDeps } from '../../catalog-deps';

/** `DELETE /coupons/{id}`: no new redemptions; the discounts already given keep running. */
export async function deactivateCoupon(deps: CatalogDeps, scope: ProjectScope, couponId: string): Promise<CouponModel> {
  const coupon = await deps.coupons.get(scope, couponId);
  if (!coupon.isActive) return coupon;
  return deps.coupons.deactivate(coupon, await deps.clocks.now(scope));
}
