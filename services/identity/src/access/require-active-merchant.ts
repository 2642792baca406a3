import { DomainError } from '@billing/platform';
import type { MerchantModel } from '../db/models';
import type { IdentityDeps } from '../identity-deps';

/** The merchant behind a verified token; a deactivated one may no longer act (403). */
export async function requireActiveMerchant(deps: IdentityDeps, merchantId: string): Promise<MerchantModel> {
  const merchant = await deps.merchants.findById(merchantId);
  if (!merchant) throw new DomainError('unauthenticated', 'Merchant not found');
  if (!merchant.isActive) throw new DomainError('permission_denied', 'Merchant account is deactivated');
  return merchant;
}
