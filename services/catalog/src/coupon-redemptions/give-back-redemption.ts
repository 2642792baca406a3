import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../catalog-deps';

/**
 * Gives back the redemption made with `key` (what it was for did not happen), in the caller's
 * transaction: the coupon's count goes down with it. Idempotent: nothing to give back answers 0.
 */
export async function giveBackRedemption(
  deps: CatalogDeps,
  scope: ProjectScope,
  key: string,
  transaction: Transaction,
): Promise<number> {
  return deps.coupons.release(scope, key, await deps.clocks.now(scope, transaction), transaction);
}
