import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  RotatedSecretSchema,
  toWebhook,
  WebhookIdParams,
  WebhookSchema,
} from './webhooks.schemas';

const DUAL_AUTH_NOTE = "Send both the project's API key and its merchant's access token.";

export const webhooksResource: Resource = {
  tag: 'Webhooks',
  prefixes: ['/webhooks'],
  routes: ({ notification }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Register a webhook',
      description:
        `${DUAL_AUTH_NOTE} Its signing secret is in this answer only (and after a rotation). ` +
        'Event names must be of the catalogue, or "*".',
      auth: 'dual',
      body: CreateWebhookBody,
      response: { status: 201, description: 'The webhook and its secret', schema: CreatedWebhookSchema },
      async handle({ auth: { apiKey }, body }) {
        const created = await notification.createWebhook({
          scope: scopeOf(apiKey),
          url: body.url,
          events: body.events,
          description: body.description,
        });
        return { ...toWebhook(required(created.webhook, 'webhook')), secret: created.secret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: "List the project's webhooks in this mode, newest first",
      description: `${DUAL_AUTH_NOTE} Secrets are never listed.`,
      auth: 'dual',
      response: { status: 200, description: 'The webhooks', schema: z.array(WebhookSchema) },
      async handle({ auth: { apiKey } }) {
        const { webhooks } = await notification.listWebhooks({ scope: scopeOf(apiKey) });
        return webhooks.map(toWebhook);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:webhook_id',
      summary: 'Delete a webhook',
      description: `${DUAL_AUTH_NOTE} It receives nothing more.`,
      auth: 'dual',
      params: WebhookIdParams,
      errors: [403, 404],
      response: { status: 204, description: 'Deleted' },
      async handle({ auth: { apiKey }, params }) {
        await notification.deleteWebhook({ scope: scopeOf(apiKey), webhookId: params.webhook_id });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:webhook_id/rotate-secret',
      summary: "Rotate a webhook's signing secret",
      description: `${DUAL_AUTH_NOTE} The old secret signs nothing from now on.`,
      auth: 'dual',
      params: WebhookIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The new secret', schema: RotatedSecretSchema },
      async handle({ auth: { apiKey }, params }) {
        const rotated = await notification.rotateSecret({ scope: scopeOf(apiKey), webhookId: params.webhook_id });
        return { id: rotated.webhookId, secret: rotated.secret };
      },
    }),
  ],
};
