import { requireActiveMerchant } from '../../access/require-active-merchant';
import type { MerchantModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

/** A merchant's account; a deactivated one may no longer act (403). */
export function getMerchant(deps: IdentityDeps, merchantId: string): Promise<MerchantModel> {
  return requireActiveMerchant(deps, merchantId);
}
