import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required } from '../common.schemas';
import {
  ApiKeyIdParams,
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  CreateApiKeyBody,
  ListApiKeysQuery,
  toApiKey,
  toApiKeyWithSecret,
  UpdateApiKeyBody,
} from './api-keys.schemas';

export const apiKeysResource: Resource = {
  tag: 'API keys',
  prefixes: ['/api-keys', '/merchants/api-keys'],
  routes: ({ identity, apiKeyCache }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: "Create an API key for one of the merchant's projects",
      auth: 'jwt',
      body: CreateApiKeyBody,
      errors: [403, 404],
      response: {
        status: 201,
        description: 'The key, with its secret (shown only here)',
        schema: ApiKeyWithSecretSchema,
      },
      async handle({ auth, body }) {
        const { apiKey } = await identity.createApiKey({
          merchantId: auth.merchant.id,
          projectId: body.project_id,
          name: body.name,
          isLive: body.is_live,
        });
        return toApiKeyWithSecret(required(apiKey, 'api_key'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: "The merchant's API keys (without secrets)",
      auth: 'jwt',
      query: ListApiKeysQuery,
      errors: [403, 404],
      response: { status: 200, description: 'Keys that are not revoked, newest first', schema: z.array(ApiKeySchema) },
      async handle({ auth, query }) {
        const { apiKeys } = await identity.listApiKeys({
          merchantId: auth.merchant.id,
          projectId: query.project_id ?? '',
        });
        return apiKeys.map(toApiKey);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:api_key_id',
      summary: 'Revoke an API key for good',
      description: 'A revoked key is refused with 401.',
      auth: 'jwt',
      params: ApiKeyIdParams,
      errors: [403, 404],
      response: { status: 204, description: 'Revoked' },
      async handle({ auth, params }) {
        await identity.revokeApiKey({ merchantId: auth.merchant.id, apiKeyId: params.api_key_id });
        apiKeyCache.evictKey(params.api_key_id);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:api_key_id',
      summary: 'Disable or re-enable an API key',
      description: 'A disabled key is refused with 403 until it is enabled again.',
      auth: 'jwt',
      params: ApiKeyIdParams,
      body: UpdateApiKeyBody,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The key, without its secret', schema: ApiKeySchema },
      async handle({ auth, params, body }) {
        const { apiKey } = await identity.setApiKeyActive({
          merchantId: auth.merchant.id,
          apiKeyId: params.api_key_id,
          isActive: body.is_active,
        });
        apiKeyCache.evictKey(params.api_key_id);
        return toApiKey(required(apiKey, 'api_key'));
      },
    }),
  ],
};
