import type { ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../../catalog-deps';
import { giveBackRedemption } from '../../coupon-redemptions/give-back-redemption';

/**
 * gRPC `ReleaseCouponRedemption`, and the compensation of the workflows' "redeem coupon" step:
 * the redemption made with `key` given back in a transaction of its own. Answers how many were
 * given back (0 when there was nothing to give back).
 */
export function releaseCouponRedemption(deps: CatalogDeps, scope: ProjectScope, key: string): Promise<number> {
  return deps.sequelize.transaction((transaction) => giveBackRedemption(deps, scope, key, transaction));
}
