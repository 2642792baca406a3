import { recordEvent } from '@billing/platform';
import type { Transaction } from 'sequelize';
import type { MerchantModel } from '../db/models';
import { merchantEvents } from '../events/merchant.events';
import type { IdentityDeps } from '../identity-deps';

/**
 * Records merchant.seller_details_updated for `merchant` as it stands in the caller's transaction,
 * naming every project the transaction sees. The caller holds the merchant's row lock
 * (MerchantRepository.lockForUpdate or lockForShare) from before it read the merchant: a seller
 * change and a project creation then run one after the other, so the later one's event carries
 * the other's outcome (the new project, or the new details) and no project is left with a stale
 * seller.
 */
export async function recordSellerDetails(deps: IdentityDeps, merchant: MerchantModel, transaction: Transaction) {
  const projectIds = await deps.projects.idsOfMerchant(merchant.id, transaction);
  const event = merchantEvents.sellerDetailsUpdated(merchant, projectIds, deps.clock.now());
  await recordEvent(deps.sequelize, transaction, event);
}
