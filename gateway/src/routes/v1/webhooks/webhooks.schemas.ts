import { z } from 'zod';
import type { notificationV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, pageQuery, timestamp } from '../common.schemas';

export const WebhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'Event names of the catalogue, or ["*"] for every event' }),
    description: z.string().nullable(),
    is_active: z.boolean(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Webhook' });

const secret = z.string().meta({
  description:
    'The signing secret, `whsec_` + base64 of 32 random bytes; shown only here. X-Signature is keyed with this whole ' +
    'string, the Standard Webhooks signature with the decoded part after `whsec_`.',
});

export const CreatedWebhookSchema = WebhookSchema.extend({ secret }).meta({ id: 'CreatedWebhook' });

export const RotatedSecretSchema = z.object({ id: z.uuid(), secret }).meta({ id: 'RotatedWebhookSecret' });

/** Event names are checked by notification against its catalogue, so a new event needs no gateway change. */
export const CreateWebhookBody = z
  .object({
    url: z.string().trim().min(1).max(2048).meta({
      description:
        'An https URL of the merchant; it may not resolve to a loopback, private, link-local or metadata address',
    }),
    events: z.array(z.string().min(1).max(100)).min(1).max(100),
    description: z.string().trim().max(500).optional(),
  })
  .meta({ id: 'CreateWebhookRequest' });

export const WebhookIdParams = z.object({ webhook_id: idParam('Webhook') });

export const toWebhook = (webhook: notificationV1.Webhook): z.input<typeof WebhookSchema> => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.events,
  description: webhook.description ?? null,
  is_active: webhook.isActive,
  livemode: webhook.livemode,
  created_at: iso(webhook.createdAt),
});

const DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;

export const DeliverySchema = z
  .object({
    id: z.uuid().meta({ description: 'Also the X-Webhook-Id and webhook-id of every attempt' }),
    webhook_id: z.uuid(),
    event: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int(),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: timestamp.nullable(),
    created_at: timestamp,
    delivered_at: timestamp.nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'WebhookDelivery' });

export const DeliveryDetailSchema = DeliverySchema.extend({
  payload: z.record(z.string(), z.unknown()).meta({ description: 'The body every attempt sends' }),
  attempt_log: z.array(
    z.object({
      attempt: z.int(),
      at: timestamp,
      status_code: z.int().nullable(),
      duration_ms: z.int(),
      error: z.string().nullable(),
    }),
  ),
}).meta({ id: 'WebhookDeliveryDetail' });

export const TestSendSchema = z
  .object({ delivery_id: z.uuid(), event: z.string(), status: z.enum(DELIVERY_STATUSES) })
  .meta({ id: 'WebhookTestSend' });

export const TestSendBody = z
  .object({
    webhook_id: z.string().min(1),
    event: z.string().min(1).max(100).meta({ description: 'An event name of the catalogue' }),
  })
  .meta({ id: 'WebhookTestSendRequest' });

export const ListDeliveriesQuery = z.object({ status: z.enum(DELIVERY_STATUSES).optional(), ...pageQuery });

export const DeliveryIdParams = z.object({ delivery_id: idParam('Delivery') });

const isoOrNull = (date: Date | undefined) => (date ? date.toISOString() : null);

export const toDelivery = (d: notificationV1.Delivery): z.input<typeof DeliverySchema> => ({
  id: d.id,
  webhook_id: d.webhookId,
  event: d.event,
  status: d.status as (typeof DELIVERY_STATUSES)[number],
  attempts: d.attempts,
  last_status_code: d.lastStatusCode ?? null,
  last_error: d.lastError ?? null,
  next_attempt_at: isoOrNull(d.nextAttemptAt),
  created_at: iso(d.createdAt),
  delivered_at: isoOrNull(d.deliveredAt),
  livemode: d.livemode,
});

export const toDeliveryDetail = (
  reply: notificationV1.GetDeliveryResponse,
  delivery: notificationV1.Delivery,
): z.input<typeof DeliveryDetailSchema> => ({
  ...toDelivery(delivery),
  payload: JSON.parse(reply.payload) as Record<string, unknown>,
  attempt_log: reply.attempts.map((a) => ({
    attempt: a.attempt,
    at: iso(a.at, 'at'),
    status_code: a.statusCode ?? null,
    duration_ms: a.durationMs,
    error: a.error ?? null,
  })),
});

export const webhookExample = {
  id: EXAMPLE.webhookId,
  url: 'https://acme.example/hooks/billing',
  events: ['checkout.session.completed', 'invoice.paid', 'invoice.payment_failed', 'subscription.cancelled'],
  description: 'Provision and revoke gym access',
  is_active: true,
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof WebhookSchema>;

export const deliveryExample = {
  id: EXAMPLE.deliveryId,
  webhook_id: EXAMPLE.webhookId,
  event: 'invoice.paid',
  status: 'SUCCEEDED',
  attempts: 1,
  last_status_code: 204,
  last_error: null,
  next_attempt_at: null,
  created_at: '2026-03-02T09:21:38.000Z',
  delivered_at: '2026-03-02T09:21:38.412Z',
  livemode: false,
} satisfies z.input<typeof DeliverySchema>;

/** A delivery that failed every attempt: the one POST /webhooks/deliveries/{id}/retry takes. */
export const failedDeliveryExample = {
  ...deliveryExample,
  status: 'FAILED',
  attempts: 5,
  last_status_code: 500,
  last_error: null,
  delivered_at: null,
} satisfies z.input<typeof DeliverySchema>;
