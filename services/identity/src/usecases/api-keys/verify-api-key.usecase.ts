import { DomainError } from '@billing/platform';
import { hashApiKey, looksLikeApiKey } from '../../domain/api-key';
import type { IdentityDeps } from '../../identity-deps';

export interface ApiKeyPrincipal {
  keyId: string;
  projectId: string;
  merchantId: string;
  livemode: boolean;
}

/** last_used_at is advisory; writing it at most once a minute keeps verification read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function verifyApiKey(deps: IdentityDeps, key: string): Promise<ApiKeyPrincipal> {
  if (!looksLikeApiKey(key)) throw new DomainError('unauthenticated', 'Invalid API key');
  const owner = await deps.apiKeys.findOwnerByHash(hashApiKey(key));
  if (!owner || owner.revoked_at) throw new DomainError('unauthenticated', 'Invalid API key');
  if (!owner.is_active) throw new DomainError('permission_denied', 'API key is disabled');
  if (!owner.merchant_is_active) throw new DomainError('permission_denied', 'Merchant account is deactivated');
  const now = deps.clock.now();
  if (!owner.last_used_at || now.getTime() - new Date(owner.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
    await deps.apiKeys.touchLastUsed(owner.id, now);
  }
  return { keyId: owner.id, projectId: owner.project_id, merchantId: owner.merchant_id, livemode: owner.is_live };
}
