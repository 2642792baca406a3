import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required } from '../common.schemas';
import {
  apiKeyExample,
  ApiKeyIdParams,
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  CreateApiKeyBody,
  ListApiKeysQuery,
  newKeyPairExample,
  toApiKey,
  toApiKeyWithSecret,
  UpdateApiKeyBody,
} from './api-keys.schemas';

export const apiKeysResource: Resource = {
  tag: {
    name: 'API keys',
    description:
      'The keys that call the billing API (`X-Api-Key`). A key belongs to one project and one mode: `svc_test_...` ' +
      'keys see and change only test data, `svc_live_...` keys only live data. The secret is shown once, at ' +
      'creation; a key can be disabled (403) and re-enabled, or revoked for good (401).',
  },
  prefixes: ['/api-keys', '/merchants/api-keys'],
  routes: ({ identity, apiKeyCache }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createApiKey',
      summary: "Create an API key for one of the merchant's projects",
      description:
        'A test key unless `is_live` is true. The secret (`key`) is in this response only; store it now. A project ' +
        'may have any number of keys, so rotating a key is: create a new one, deploy it, revoke the old one.',
      auth: 'jwt',
      body: CreateApiKeyBody,
      bodyExample: { project_id: EXAMPLE.projectId, name: 'Production server', is_live: true },
      errors: { 403: 'Project belongs to another merchant', 404: 'Project not found' },
      response: {
        status: 201,
        description: 'The key, with its secret (shown only here)',
        schema: ApiKeyWithSecretSchema,
      },
      responseExample: { ...newKeyPairExample[1], name: 'Production server' },
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
      operationId: 'listApiKeys',
      summary: "The merchant's API keys (without secrets)",
      description:
        'Every key that is not revoked, of all projects or of `project_id`, newest first, test and live alike. ' +
        '`last4` and `last_used_at` tell keys apart; secrets are never listed.',
      auth: 'jwt',
      query: ListApiKeysQuery,
      errors: { 403: 'Project belongs to another merchant', 404: 'Project not found' },
      response: { status: 200, description: 'Keys that are not revoked, newest first', schema: z.array(ApiKeySchema) },
      responseExample: [apiKeyExample],
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
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key for good',
      description:
        'Calls with a revoked key are refused with 401 at once, on every gateway replica. A revoked key cannot be ' +
        'restored: disable it instead (`PATCH`) to stop it for a while.',
      auth: 'jwt',
      params: ApiKeyIdParams,
      errors: { 403: 'API key belongs to another merchant', 404: 'API key not found' },
      response: { status: 204, description: 'Revoked' },
      async handle({ auth, params }) {
        await identity.revokeApiKey({ merchantId: auth.merchant.id, apiKeyId: params.api_key_id });
        apiKeyCache.evictKey(params.api_key_id);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:api_key_id',
      operationId: 'updateApiKey',
      summary: 'Disable or re-enable an API key',
      description:
        'A disabled key (`is_active: false`) is refused with 403 until it is enabled again; its data and webhooks ' +
        'are untouched. A revoked key cannot be changed (400).',
      auth: 'jwt',
      params: ApiKeyIdParams,
      body: UpdateApiKeyBody,
      bodyExample: { is_active: false },
      errors: {
        400: 'A revoked API key cannot be changed',
        403: 'API key belongs to another merchant',
        404: 'API key not found',
      },
      response: { status: 200, description: 'The key, without its secret', schema: ApiKeySchema },
      responseExample: { ...apiKeyExample, is_active: false },
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
