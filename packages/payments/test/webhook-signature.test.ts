import { createHmac } from 'node:crypto';
import { signPaystackWebhook, verifyPaystackWebhook } from '../src/webhook-signature';

describe('Paystack webhook signature (x-paystack-signature)', () => {
  const secret = 'sk_test_vector_secret';
  const body = '{"event":"charge.success","data":{"reference":"ref-1","amount":500050}}';

  it('is the hex HMAC-SHA512 of the exact body bytes, keyed by the secret', () => {
    const byHand = createHmac('sha512', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signPaystackWebhook(body, secret)).toBe(byHand);
    // Pinned, so a change of algorithm or encoding cannot pass unnoticed by matching itself.
    expect(byHand).toBe(
      'c5ad7086a6ced354dd6ef32a84513f3b02ba99fa2366418efb511518468afa003cb0b44031c454e0c0499f5759fd2b08cda90af4d289cb4d4272fc864d1ab344',
    );
  });

  it('signs a Buffer and the same text identically, and verifies its own signature', () => {
    const signature = signPaystackWebhook(Buffer.from(body), secret);
    expect(signature).toBe(signPaystackWebhook(body, secret));
    expect(verifyPaystackWebhook(Buffer.from(body), signature, secret)).toBe(true);
    expect(verifyPaystackWebhook(body, signature, secret)).toBe(true);
  });

  it('refuses a body with one byte changed', () => {
    const signature = signPaystackWebhook(body, secret);
    const tampered = Buffer.from(body);
    tampered[tampered.indexOf('5'.charCodeAt(0))] = '6'.charCodeAt(0);
    expect(verifyPaystackWebhook(tampered, signature, secret)).toBe(false);
  });

  it('refuses a signature with one digit changed, or made with another secret', () => {
    const signature = signPaystackWebhook(body, secret);
    const flipped = `${signature.slice(0, 10)}${signature[10] === '0' ? '1' : '0'}${signature.slice(11)}`;
    expect(verifyPaystackWebhook(body, flipped, secret)).toBe(false);
    expect(verifyPaystackWebhook(body, signPaystackWebhook(body, 'sk_test_another_secret'), secret)).toBe(false);
    expect(verifyPaystackWebhook(body, signature, 'sk_test_another_secret')).toBe(false);
  });

  it('refuses truncated, padded, empty, missing and non-hex signatures without throwing', () => {
    const signature = signPaystackWebhook(body, secret);
    for (const header of [
      signature.slice(0, 127),
      signature.slice(0, 64),
      `${signature}00`,
      '',
      undefined,
      null,
      [signature],
      'z'.repeat(128),
    ]) {
      expect(verifyPaystackWebhook(body, header, secret)).toBe(false);
    }
  });

  it('never verifies with an empty secret', () => {
    expect(verifyPaystackWebhook(body, signPaystackWebhook(body, ''), '')).toBe(false);
  });
});
