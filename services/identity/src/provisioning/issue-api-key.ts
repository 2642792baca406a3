import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { ApiKeyModel } from '../db/models';
import { generateApiKey } from '../domain/api-key';
import type { IdentityDeps } from '../identity-deps';

export interface IssuedApiKey {
  model: ApiKeyModel;
  /** The full secret: returned once, never stored. */
  key: string;
}

/** Stores a new key's hash inside the caller's transaction; the secret itself is only returned. */
export async function issueApiKey(
  deps: IdentityDeps,
  input: { merchantId: string; projectId: string; name: string; isLive: boolean },
  transaction: Transaction,
): Promise<IssuedApiKey> {
  const generated = generateApiKey(input.isLive);
  const model = await deps.apiKeys.create(
    {
      id: randomUUID(),
      projectId: input.projectId,
      merchantId: input.merchantId,
      name: input.name,
      keyHash: generated.keyHash,
      keyPrefix: generated.keyPrefix,
      last4: generated.last4,
      isLive: input.isLive,
      createdAt: deps.clock.now(),
    },
    transaction,
  );
  return { model, key: generated.key };
}
