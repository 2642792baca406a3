import { recordEvent } from '@billing/platform';
import { findOwnApiKey } from '../../access/find-own-api-key';
import type { ApiKeyModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

/** Revocation is permanent and idempotent; the event lets every gateway replica evict the key. */
export async function revokeApiKey(deps: IdentityDeps, merchantId: string, keyId: string): Promise<ApiKeyModel> {
  const key = await findOwnApiKey(deps, merchantId, keyId);
  if (key.revokedAt) return key;
  const now = deps.clock.now();
  return deps.sequelize.transaction(async (transaction) => {
    await deps.apiKeys.revoke(key, now, transaction);
    await recordEvent(deps.sequelize, transaction, {
      type: 'api_key.revoked',
      data: { api_key_id: key.id, merchant_id: merchantId },
      occurredAt: now,
    });
    return key;
  });
}
