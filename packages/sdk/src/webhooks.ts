import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError as StandardWebhooksError } from 'standardwebhooks';

/** The body of every delivery: the event's id, its name, its data and when it happened. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  event: string;
  data: Data;
  created_at: string;
}

export interface VerifyWebhookInput {
  /** The request body exactly as received (bytes or text), before any JSON parsing. */
  payload: string | Buffer;
  /** The request's headers: a fetch `Headers`, or Node's `req.headers`. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The endpoint's signing secret (`whsec_...`), as answered when the webhook was registered. */
  secret: string;
}

/** The delivery is not proven to come from the platform with this secret, or is too old. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/**
 * How far a delivery's timestamp may be from now: the tolerance the standardwebhooks package
 * applies to `webhook-timestamp`, used for `X-Timestamp` too.
 */
const TOLERANCE_SECONDS = 5 * 60;

function headerOf(headers: VerifyWebhookInput['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), checked by its own package. */
function verifyStandardWebhook(
  payload: string | Buffer,
  id: string,
  timestamp: string,
  signature: string,
  secret: string,
) {
  try {
    new Webhook(secret).verify(payload, {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
  } catch (err) {
    if (err instanceof StandardWebhooksError) throw new WebhookVerificationError(`Standard Webhooks: ${err.message}`);
    throw err;
  }
}

/**
 * The seed's rule: X-Signature is the hex HMAC-SHA256 of the raw body keyed with the whole
 * `whsec_...` string. It signs the body only, so X-Timestamp (the attempt's time) is checked for
 * freshness but is not itself signed: prefer the Standard Webhooks headers, which sign it.
 */
function verifySeedSignature(
  payload: string | Buffer,
  signature: string,
  timestamp: string | undefined,
  secret: string,
) {
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError('X-Signature does not match the body');
  }
  const sentAt = timestamp !== undefined && /^\d+$/.test(timestamp) ? Number(timestamp) : undefined;
  if (sentAt === undefined) throw new WebhookVerificationError('X-Timestamp is missing or not a number of seconds');
  if (Math.abs(Date.now() / 1000 - sentAt) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('X-Timestamp is more than 5 minutes away from now');
  }
}

/**
 * Checks that a webhook delivery was signed with `secret` and is recent, and returns its event.
 * Uses the Standard Webhooks headers when present (the platform sends them on every delivery),
 * else the seed's X-Signature and X-Timestamp. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook<Data = Record<string, unknown>>({
  payload,
  headers,
  secret,
}: VerifyWebhookInput): WebhookEvent<Data> {
  const standard = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headerOf(headers, name));
  const [id, timestamp, signature] = standard;
  const seedSignature = headerOf(headers, 'x-signature');
  if (id !== undefined && timestamp !== undefined && signature !== undefined) {
    verifyStandardWebhook(payload, id, timestamp, signature, secret);
  } else if (seedSignature !== undefined) {
    verifySeedSignature(payload, seedSignature, headerOf(headers, 'x-timestamp'), secret);
  } else {
    throw new WebhookVerificationError('No signature: expected webhook-id, webhook-timestamp and webhook-signature');
  }
  try {
    return JSON.parse(payload.toString()) as WebhookEvent<Data>;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON');
  }
}
