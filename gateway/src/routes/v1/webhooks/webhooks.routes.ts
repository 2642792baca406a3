import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import { webhookEventExample } from './webhook-events.schemas';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  deliveryExample,
  DeliveryDetailSchema,
  DeliveryIdParams,
  DeliverySchema,
  failedDeliveryExample,
  ListDeliveriesQuery,
  RotatedSecretSchema,
  TestSendBody,
  TestSendSchema,
  toDelivery,
  toDeliveryDetail,
  toWebhook,
  webhookExample,
  WebhookIdParams,
  WebhookSchema,
} from './webhooks.schemas';

const WEBHOOK_NOT_FOUND = { 403: 'Webhook belongs to another project', 404: 'Webhook not found' };
const DELIVERY_NOT_FOUND = { 403: 'Delivery belongs to another project', 404: 'Delivery not found' };

export const webhooksResource: Resource = {
  tag: {
    name: 'Webhooks',
    description:
      "Endpoints of the merchant that receive the project's events (see the document's webhooks for every event " +
      'and its body) in the mode they were registered in. Every delivery is signed with the webhook\u2019s ' +
      'secret, retried on failure (by default after 1 min, 5 min, 30 min and 2 h), and logged with each attempt.',
  },
  prefixes: ['/webhooks'],
  routes: ({ notification }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createWebhook',
      summary: 'Register a webhook',
      description:
        'Events of the key\u2019s mode go to `url`: the names listed, or every event with `["*"]` (events added ' +
        'later included); an unknown name is a 422. The signing secret is in this answer only (and after a ' +
        'rotation): verify each delivery with it (X-Signature or the Standard Webhooks headers). The URL must be ' +
        'https and may not resolve to a loopback, private, link-local or metadata address (422).',
      auth: 'dual',
      body: CreateWebhookBody,
      bodyExample: {
        url: 'https://acme.example/hooks/billing',
        events: ['checkout.session.completed', 'invoice.paid', 'invoice.payment_failed', 'subscription.cancelled'],
        description: 'Provision and revoke gym access',
      },
      response: { status: 201, description: 'The webhook and its secret', schema: CreatedWebhookSchema },
      responseExample: { ...webhookExample, secret: EXAMPLE.secret },
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
      operationId: 'listWebhooks',
      summary: "List the project's webhooks in this mode, newest first",
      description: 'Secrets are never listed: a lost secret is replaced by a rotation.',
      auth: 'dual',
      response: { status: 200, description: 'The webhooks', schema: z.array(WebhookSchema) },
      responseExample: [webhookExample],
      async handle({ auth: { apiKey } }) {
        const { webhooks } = await notification.listWebhooks({ scope: scopeOf(apiKey) });
        return webhooks.map(toWebhook);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:webhook_id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook',
      description: 'It receives nothing more, retries of earlier deliveries included; its delivery log goes with it.',
      auth: 'dual',
      params: WebhookIdParams,
      errors: WEBHOOK_NOT_FOUND,
      response: { status: 204, description: 'Deleted' },
      async handle({ auth: { apiKey }, params }) {
        await notification.deleteWebhook({ scope: scopeOf(apiKey), webhookId: params.webhook_id });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:webhook_id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: "Rotate a webhook's signing secret",
      description:
        'Every attempt from now on, retries of earlier deliveries included, is signed with the new secret, shown ' +
        'in this answer only; the old one signs nothing more. Deploy the new secret to the receiver right away.',
      auth: 'dual',
      params: WebhookIdParams,
      errors: WEBHOOK_NOT_FOUND,
      response: { status: 200, description: 'The new secret', schema: RotatedSecretSchema },
      responseExample: { id: EXAMPLE.webhookId, secret: EXAMPLE.secret },
      async handle({ auth: { apiKey }, params }) {
        const rotated = await notification.rotateSecret({ scope: scopeOf(apiKey), webhookId: params.webhook_id });
        return { id: rotated.webhookId, secret: rotated.secret };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/test',
      operationId: 'sendTestWebhookEvent',
      summary: 'Send a mock event to a webhook',
      description:
        'A delivery like any other (signed, retried, in the logs), sent at once whatever events the webhook ' +
        'subscribes to, to build and check a receiver before real events flow. Its `data` has `"test": true` and ' +
        'sample values: the fields of the real event for subscription and invoice events (but `trial_end` and ' +
        '`failure`), only `id` and `created_at` for the others. An event name outside the catalogue is a 422.',
      auth: 'dual',
      body: TestSendBody,
      bodyExample: { webhook_id: EXAMPLE.webhookId, event: 'invoice.paid' },
      errors: WEBHOOK_NOT_FOUND,
      response: { status: 202, description: 'The delivery, under way', schema: TestSendSchema },
      responseExample: { delivery_id: EXAMPLE.deliveryId, event: 'invoice.paid', status: 'PENDING' },
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
      operationId: 'listWebhookDeliveries',
      summary: "A webhook's delivery log, newest first",
      description:
        'Each delivery with its status, attempts and last outcome; `status=FAILED` finds the ones to retry. ' +
        'Pages of `limit` (default 20, at most 100); the next page starts after the last id of this one ' +
        '(`starting_after`).',
      auth: 'dual',
      params: WebhookIdParams,
      query: ListDeliveriesQuery,
      errors: { 400: 'starting_after does not name an item of this list', ...WEBHOOK_NOT_FOUND },
      response: { status: 200, description: 'One page of deliveries', schema: z.array(DeliverySchema) },
      responseExample: [deliveryExample],
      async handle({ auth: { apiKey }, params, query }) {
        const { deliveries } = await notification.listDeliveries({
          scope: scopeOf(apiKey),
          webhookId: params.webhook_id,
          status: query.status ?? '',
          page: pageOf(query),
        });
        return deliveries.map(toDelivery);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/deliveries/:delivery_id',
      operationId: 'getWebhookDelivery',
      summary: 'One delivery with its body and every attempt',
      description:
        'The exact body every attempt sent (`payload`) and each attempt\u2019s time, HTTP status, duration and ' +
        'error: what to look at when a receiver says it got nothing.',
      auth: 'dual',
      params: DeliveryIdParams,
      errors: DELIVERY_NOT_FOUND,
      response: { status: 200, description: 'The delivery', schema: DeliveryDetailSchema },
      responseExample: {
        ...deliveryExample,
        payload: webhookEventExample('invoice.paid'),
        attempt_log: [{ attempt: 1, at: '2026-03-02T09:21:38.000Z', status_code: 204, duration_ms: 412, error: null }],
      },
      async handle({ auth: { apiKey }, params }) {
        const reply = await notification.getDelivery({ scope: scopeOf(apiKey), deliveryId: params.delivery_id });
        return toDeliveryDetail(reply, required(reply.delivery, 'delivery'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/deliveries/:delivery_id/retry',
      operationId: 'retryWebhookDelivery',
      summary: 'Re-send a FAILED delivery now',
      description:
        'One attempt with the same body and `webhook-id`, numbered on from the last; failing again leaves it ' +
        'FAILED with nothing scheduled. A delivery that is not FAILED (still retrying, or delivered) is a 400.',
      auth: 'dual',
      params: DeliveryIdParams,
      errors: { 400: 'Only a FAILED delivery can be retried; this one is SUCCEEDED', ...DELIVERY_NOT_FOUND },
      response: { status: 202, description: 'The delivery, due now', schema: DeliverySchema },
      responseExample: { ...failedDeliveryExample, status: 'RETRYING', next_attempt_at: '2026-03-03T08:00:00.000Z' },
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
