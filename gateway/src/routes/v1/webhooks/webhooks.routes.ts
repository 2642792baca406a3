import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveryDetailSchema,
  DeliveryIdParams,
  DeliverySchema,
  ListDeliveriesQuery,
  RotatedSecretSchema,
  TestSendBody,
  TestSendSchema,
  toDelivery,
  toDeliveryDetail,
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
    defineRoute({
      method: 'post',
      path: '/test',
      summary: 'Send a mock event to a webhook',
      description:
        `${DUAL_AUTH_NOTE} A delivery like any other (signed, retried, in the logs) whose data has the ` +
        'shape of the event with sample values and `"test": true`.',
      auth: 'dual',
      body: TestSendBody,
      errors: [403, 404],
      response: { status: 202, description: 'The delivery, under way', schema: TestSendSchema },
      async handle({ auth: { apiKey }, body }) {
        const { delivery } = await notification.sendTestEvent({
          scope: scopeOf(apiKey),
          webhookId: body.webhook_id,
          event: body.event,
        });
        const sent = toDelivery(required(delivery, 'delivery'));
        return { delivery_id: sent.id, event: sent.event, status: sent.status };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:webhook_id/deliveries',
      summary: "A webhook's delivery log, newest first",
      description: DUAL_AUTH_NOTE,
      auth: 'dual',
      params: WebhookIdParams,
      query: ListDeliveriesQuery,
      errors: [400, 403, 404],
      response: { status: 200, description: 'One page of deliveries', schema: z.array(DeliverySchema) },
      async handle({ auth: { apiKey }, params, query }) {
        const { deliveries } = await notification.listDeliveries({
          scope: scopeOf(apiKey),
          webhookId: params.webhook_id,
          status: query.status ?? '',
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
        });
        return deliveries.map(toDelivery);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/deliveries/:delivery_id',
      summary: 'One delivery with its body and every attempt',
      description: DUAL_AUTH_NOTE,
      auth: 'dual',
      params: DeliveryIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The delivery', schema: DeliveryDetailSchema },
      async handle({ auth: { apiKey }, params }) {
        const reply = await notification.getDelivery({ scope: scopeOf(apiKey), deliveryId: params.delivery_id });
        return toDeliveryDetail(reply, required(reply.delivery, 'delivery'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/deliveries/:delivery_id/retry',
      summary: 'Re-send a FAILED delivery now',
      description:
        `${DUAL_AUTH_NOTE} One attempt, numbered on from the last; failing again leaves it FAILED with ` +
        'nothing scheduled. A delivery that is not FAILED is a 400.',
      auth: 'dual',
      params: DeliveryIdParams,
      errors: [400, 403, 404],
      response: { status: 202, description: 'The delivery, due now', schema: DeliverySchema },
      async handle({ auth: { apiKey }, params }) {
        const { delivery } = await notification.retryDelivery({
          scope: scopeOf(apiKey),
          deliveryId: params.delivery_id,
        });
        return toDelivery(required(delivery, 'delivery'));
      },
    }),
  ],
};
