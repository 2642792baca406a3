import { DomainError, recordEvent } from '@billing/platform';
import { findOwnApiKey } from '../../access/find-own-api-key';
import type { ApiKeyModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

export async function setApiKeyActive(
  deps: IdentityDeps,
  merchantId: string,
  keyId: string,
  isActive: boolean,
): Promise<ApiKeyModel> {
  const key = await findOwnApiKey(deps, merchantId, keyId);
  if (key.revokedAt) throw new DomainError('failed_precondition', 'A revoked API key cannot be changed');
  const now = deps.clock.now();
  return deps.sequelize.transaction(async (transaction) => {
    await deps.apiKeys.setActive(key, isActive, transaction);
    await recordEvent(deps.sequelize, transaction, {
      type: 'api_key.updated',
      data: { api_key_id: key.id, merchant_id: merchantId, is_active: isActive },
      occurredAt: now,
    });
    return key;
  });
}
