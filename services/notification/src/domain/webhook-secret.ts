import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A signing secret as the merchant receives it: `whsec_` + base64 of 32 random bytes, the
 * Standard Webhooks format (its verifiers key with the decoded bytes; X-Signature keys with the
 * whole string).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Secrets at rest: deliveries must sign with them, so they are encrypted (AES-256-GCM under
 * WEBHOOK_SECRETS_KEY), not hashed. Stored as base64 of iv (12) + tag (16) + ciphertext.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('WEBHOOK_SECRETS_KEY must be base64 of 32 bytes');
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  open(stored: string): string {
    const raw = Buffer.from(stored, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
