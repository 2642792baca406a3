import { z } from 'zod';
import type { notificationV1 } from '@billing/proto';
import { idParam, iso, timestamp } from '../common.schemas';

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
