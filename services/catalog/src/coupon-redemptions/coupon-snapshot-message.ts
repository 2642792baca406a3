import type { catalogV1 } from '@billing/proto';
import type { CouponSnapshot } from '../domain/coupon-rules';

/**
 * A coupon's redeemed terms as the proto carries them: catalog.v1.CouponSnapshot, which has the
 * fields of billing.v1.CouponSnapshot one for one, so completion hands the same object to billing.
 * The snapshot's fields by the same names, a term the coupon does not have (null) left out.
 */
export const couponSnapshotMessage = (coupon: CouponSnapshot): catalogV1.CouponSnapshot => ({
  ...coupon,
  percentOff: coupon.percentOff ?? undefined,
  amountOff: coupon.amountOff ?? undefined,
  currency: coupon.currency ?? undefined,
  durationInPeriods: coupon.durationInPeriods ?? undefined,
});
