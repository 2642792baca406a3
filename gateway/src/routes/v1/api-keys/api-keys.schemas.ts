import { z } from 'zod';
import type { identityV1 } from '@billing/proto';
import { displayName, EXAMPLE, idParam, iso, timestamp } from '../common.schemas';

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    key_prefix: z.string().meta({ description: '`svc_test_` for test keys, `svc_live_` for live keys' }),
    last4: z.string().meta({ description: 'Last four characters of the key, to tell keys apart' }),
    is_live: z.boolean(),
    is_active: z.boolean(),
    last_used_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'ApiKey', description: 'An API key without its secret' });

export const ApiKeyWithSecretSchema = ApiKeySchema.extend({
  key: z.string().meta({ description: 'The full secret; returned only when the key is created' }),
}).meta({ id: 'ApiKeyWithSecret', description: 'A newly created API key, with its secret' });

export const CreateApiKeyBody = z
  .object({
    project_id: z.guid(),
    name: displayName,
    is_live: z.boolean().default(false),
  })
  .meta({ id: 'CreateApiKeyRequest' });

export const ListApiKeysQuery = z.object({
  project_id: z.guid().optional().meta({ description: 'Only the keys of this project; all projects when absent' }),
});

export const UpdateApiKeyBody = z.object({ is_active: z.boolean() }).meta({ id: 'UpdateApiKeyRequest' });

export const ApiKeyIdParams = z.object({ api_key_id: idParam('API key') });

export function toApiKey(key: identityV1.ApiKey): z.input<typeof ApiKeySchema> {
  return {
    id: key.id,
    project_id: key.projectId,
    name: key.name,
    key_prefix: key.keyPrefix,
    last4: key.last4,
    is_live: key.isLive,
    is_active: key.isActive,
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
    created_at: iso(key.createdAt),
  };
}

export function toApiKeyWithSecret(key: identityV1.ApiKey): z.input<typeof ApiKeyWithSecretSchema> {
  const { id, project_id, name, ...rest } = toApiKey(key);
  return { id, project_id, name, key: key.key, ...rest };
}

/** A new project's pair of keys, test first, as registration promises. */
export const toKeyPair = (keys: identityV1.ApiKey[]) =>
  [...keys].sort((a, b) => Number(a.isLive) - Number(b.isLive)).map(toApiKeyWithSecret);

export const apiKeyExample = {
  id: EXAMPLE.testKeyId,
  project_id: EXAMPLE.projectId,
  name: 'Test key',
  key_prefix: 'svc_test_',
  last4: 'x9Qa',
  is_live: false,
  is_active: true,
  last_used_at: EXAMPLE.periodEnd,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof ApiKeySchema>;

const liveKeyExample = {
  ...apiKeyExample,
  id: EXAMPLE.liveKeyId,
  name: 'Live key',
  key_prefix: 'svc_live_',
  last4: 'm3Zt',
  is_live: true,
  last_used_at: null,
} satisfies z.input<typeof ApiKeySchema>;

/** A new project's keys, as registration and project creation return them (secrets shown once). */
export const newKeyPairExample = [
  { ...apiKeyExample, key: 'svc_test_4fGh7JkL9mNpQ2rStUvWxYz0aBcDeFgHiJkLx9Qa', last_used_at: null },
  { ...liveKeyExample, key: 'svc_live_Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBaPm3Zt' },
] satisfies z.input<typeof ApiKeyWithSecretSchema>[];
