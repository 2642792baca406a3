import { createHmac, timingSafeEqual } from 'node:crypto';

/** Paystack's `x-paystack-signature`: hex HMAC-SHA512 of the exact body bytes, keyed by the secret key. */
export const PAYSTACK_SIGNATURE_HEADER = 'x-paystack-signature';

export function signPaystackWebhook(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha512', secret).update(rawBody).digest('hex');
}

const HEX_SHA512 = /^[0-9a-f]{128}$/i;

/**
 * True only when `signatureHeader` is the signature of these exact bytes with this secret.
 * Verify the raw body as received: re-serialized JSON is not the same bytes. The comparison
 * is constant-time, and anything that is not a full-length hex digest is refused before it.
 */
export function verifyPaystackWebhook(
  rawBody: Buffer | string,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
): boolean {
  if (!secret || typeof signatureHeader !== 'string') return false;
  const given = signatureHeader.trim();
  if (!HEX_SHA512.test(given)) return false;
  const expected = Buffer.from(signPaystackWebhook(rawBody, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
