import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * The signature headers of one attempt (docs/api-behaviour.md §12): the seed's X-Signature (hex HMAC-SHA256 of
 * the exact body keyed with the whole `whsec_...` string), X-Webhook-Id (the delivery, the same
 * on every retry), X-Timestamp, and the Standard Webhooks trio signed by the `standardwebhooks`
 * package itself, so its verifiers agree by construction.
 */
export function signedHeaders(body: string, secret: string, deliveryId: string, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    'x-signature': createHmac('sha256', secret).update(body, 'utf8').digest('hex'),
    'x-webhook-id': deliveryId,
    'x-timestamp': timestamp,
    'webhook-id': deliveryId,
    'webhook-timestamp': timestamp,
    'webhook-signature': new Webhook(secret).sign(deliveryId, at, body),
  };
}

/**
 * The body of every attempt of a delivery, fixed when the delivery is created: the envelope's
 * id, event, data and created_at, and nothing else of it, so billing's internal `analytics`
 * facts (docs/events-and-test-mode.md) never reach a merchant.
 */
export const deliveryBody = (event: { id: string; event: string; data: unknown; created_at: string }): string =>
  JSON.stringify({ id: event.id, event: event.event, data: event.data, created_at: event.created_at });
