import { recordEvent } from '@billing/platform';
import { merchantEvents } from '../../events/merchant.events';
import type { IdentityDeps } from '../../identity-deps';

/**
 * Deactivation keeps every record (billing history must survive) and turns the merchant's
 * keys and tokens into 403s. The event lets gateway replicas drop cached keys at once.
 */
export async function deactivateMerchant(deps: IdentityDeps, merchantId: string): Promise<void> {
  const merchant = await deps.merchants.findById(merchantId);
  if (!merchant || !merchant.isActive) return;
  const now = deps.clock.now();
  await deps.sequelize.transaction(async (transaction) => {
    await deps.merchants.deactivate(merchant, now, transaction);
    await recordEvent(deps.sequelize, transaction, merchantEvents.deactivated(merchantId, now));
  });
}
