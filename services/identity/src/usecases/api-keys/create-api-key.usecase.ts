import { DomainError, recordEvent } from '@billing/platform';
import { assertName, isUuid } from '../../domain/merchant-rules';
import type { ApiKeyModel } from '../../db/models';
import { issueApiKey, type IssuedApiKey } from '../projects/create-project.usecase';
import { requireActiveMerchant } from '../merchants/get-merchant.usecase';
import type { IdentityDeps } from '../../identity-deps';
import { getProject } from '../projects/get-project.usecase';

export async function createApiKey(
  deps: IdentityDeps,
  input: { merchantId: string; projectId: string; name: string; isLive: boolean },
): Promise<IssuedApiKey> {
  assertName(input.name, 'name');
  await requireActiveMerchant(deps, input.merchantId);
  await getProject(deps, input.merchantId, input.projectId);
  return deps.sequelize.transaction((transaction) =>
    issueApiKey(deps, { ...input, name: input.name.trim() }, transaction),
  );
}

export async function listApiKeys(deps: IdentityDeps, merchantId: string, projectId?: string): Promise<ApiKeyModel[]> {
  if (projectId) await getProject(deps, merchantId, projectId);
  return deps.apiKeys.listForMerchant(merchantId, projectId);
}

async function findOwnKey(deps: IdentityDeps, merchantId: string, keyId: string): Promise<ApiKeyModel> {
  const key = isUuid(keyId) ? await deps.apiKeys.findForMerchant(keyId, merchantId) : null;
  if (key) return key;
  if (isUuid(keyId) && (await deps.apiKeys.exists(keyId))) {
    throw new DomainError('permission_denied', 'API key belongs to another merchant');
  }
  throw new DomainError('not_found', 'API key not found');
}

/** Revocation is permanent and idempotent; the event lets every gateway replica evict the key. */
export async function revokeApiKey(deps: IdentityDeps, merchantId: string, keyId: string): Promise<ApiKeyModel> {
  const key = await findOwnKey(deps, merchantId, keyId);
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

export async function setApiKeyActive(
  deps: IdentityDeps,
  merchantId: string,
  keyId: string,
  isActive: boolean,
): Promise<ApiKeyModel> {
  const key = await findOwnKey(deps, merchantId, keyId);
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
