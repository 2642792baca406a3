import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  id: 'evt_1',
  event: 'invoice.paid',
  data: { id: 'inv_1', amount: 49.5 },
  created_at: '2026-01-01T00:00:00.000Z',
});
const seconds = (at: Date) => String(Math.floor(at.getTime() / 1000));
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** The Standard Webhooks headers of a delivery, signed by the standardwebhooks package itself. */
const standardHeaders = (at = new Date(), key = secret, payload = body) => ({
  'webhook-id': 'msg_1',
  'webhook-timestamp': seconds(at),
  'webhook-signature': new Webhook(key).sign('msg_1', at, payload),
});

/** The seed's headers: hex HMAC-SHA256 of the raw body keyed with the whole secret string. */
const seedHeaders = (at = new Date(), key = secret, payload = body) => ({
  'x-signature': createHmac('sha256', key).update(payload).digest('hex'),
  'x-timestamp': seconds(at),
});

const rejection = (input: Parameters<typeof verifyWebhook>[0]): WebhookVerificationError => {
  try {
    verifyWebhook(input);
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return err as WebhookVerificationError;
  }
  throw new Error('the delivery was accepted');
};

describe('verifyWebhook', () => {
  describe('Standard Webhooks headers', () => {
    it("returns the event of a delivery signed with the endpoint's secret, from Node or fetch headers", () => {
      const event = verifyWebhook<{ id: string; amount: number }>({
        payload: body,
        headers: standardHeaders(),
        secret,
      });
      expect(event).toEqual(JSON.parse(body));
      expect(event.data.amount).toBe(49.5);
      expect(verifyWebhook({ payload: Buffer.from(body), headers: new Headers(standardHeaders()), secret })).toEqual(
        event,
      );
    });

    it('reads header names in any case', () => {
      const headers = Object.fromEntries(Object.entries(standardHeaders()).map(([k, v]) => [k.toUpperCase(), v]));
      expect(verifyWebhook({ payload: body, headers, secret }).id).toBe('evt_1');
    });

    it('rejects a changed body, another secret and a timestamp older than five minutes', () => {
      expect(rejection({ payload: body.replace('49.5', '4950'), headers: standardHeaders(), secret }).message).toMatch(
        /signature/i,
      );
      const other = `whsec_${randomBytes(32).toString('base64')}`;
      expect(rejection({ payload: body, headers: standardHeaders(new Date(), other), secret }).message).toMatch(
        /signature/i,
      );
      expect(rejection({ payload: body, headers: standardHeaders(minutesAgo(6)), secret }).message).toMatch(/too old/);
    });
  });

  describe("the seed's X-Signature", () => {
    it('returns the event when the HMAC of the raw body matches and X-Timestamp is recent', () => {
      expect(verifyWebhook({ payload: Buffer.from(body), headers: seedHeaders(), secret }).event).toBe('invoice.paid');
    });

    it('rejects a changed body, a signature keyed with the decoded secret, a stale or missing X-Timestamp', () => {
      expect(rejection({ payload: `${body} `, headers: seedHeaders(), secret }).message).toMatch(/X-Signature/);
      const decodedKey = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
        .update(body)
        .digest('hex');
      expect(
        rejection({ payload: body, headers: { ...seedHeaders(), 'x-signature': decodedKey }, secret }).message,
      ).toMatch(/X-Signature/);
      expect(rejection({ payload: body, headers: seedHeaders(minutesAgo(6)), secret }).message).toMatch(/X-Timestamp/);
      const { 'x-signature': signature } = seedHeaders();
      expect(rejection({ payload: body, headers: { 'x-signature': signature }, secret }).message).toMatch(
        /X-Timestamp/,
      );
    });
  });

  it('rejects a delivery without any signature header', () => {
    expect(rejection({ payload: body, headers: { 'content-type': 'application/json' }, secret }).message).toMatch(
      /No signature/,
    );
  });
});
