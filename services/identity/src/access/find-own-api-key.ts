import { DomainError } from '@billing/platform';
import type { ApiKeyModel } from '../db/models';
import { isUuid } from '../domain/merchant-rules';
import type { IdentityDeps } from '../identity-deps';

/** 404 when no such key exists, 403 when it belongs to another merchant. */
export async function findOwnApiKey(deps: IdentityDeps, merchantId: string, keyId: string): Promise<ApiKeyModel> {
  const key = isUuid(keyId) ? await deps.apiKeys.findForMerchant(keyId, merchantId) : null;
  if (key) return key;
  if (isUuid(keyId) && (await deps.apiKeys.exists(keyId))) {
    throw new DomainError('permission_denied', 'API key belongs to another merchant');
  }
  throw new DomainError('not_found', 'API key not found');
}
