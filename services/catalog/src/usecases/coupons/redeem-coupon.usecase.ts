import type { ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../../catalog-deps';
import { redeemCode, type Redemption, type RedemptionRequest } from '../../coupon-redemptions/redeem-code';

/**
 * gRPC `RedeemCoupon`, and the "redeem coupon" step of the coupon workflows: one redemption of
 * the code counted in a transaction of its own (redeemCode has the rules).
 */
export function redeemCoupon(deps: CatalogDeps, scope: ProjectScope, request: RedemptionRequest): Promise<Redemption> {
  return deps.sequelize.transaction((transaction) => redeemCode(deps, scope, request, transaction));
}
