import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import {
  listenLocally,
  type LocalEndpoint,
  payCheckoutPageInSandbox,
  platformEvents,
  sharedPlatform,
  type SharedPlatform,
} from '@billing/testing';
import { gatewayApi, ISO_UTC, registerMerchant, type Api, type RegisteredMerchant } from './support/api';

interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; event: string; data: Record<string, unknown>; created_at: string };
}

describe('webhooks end to end: platform events reach a merchant endpoint, signed', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let receiver: LocalEndpoint | undefined;
  let secret = '';
  const deliveries: Delivery[] = [];

  const waitForEvent = async (event: string, match: (d: Delivery) => boolean = () => true, ms = 20_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = deliveries.find((d) => d.body.event === event && match(d));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`${event} was not delivered`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const verified = (d: Delivery) => {
    const standard = new Webhook(secret).verify(d.raw, {
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature']),
    });
    const seed = createHmac('sha256', secret).update(d.raw).digest('hex') === d.headers['x-signature'];
    return standard !== undefined && seed;
  };

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'e2e-hooks');
    receiver = await listenLocally((req, body, res) => {
      const raw = body.toString('utf8');
      deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw) as Delivery['body'] });
      res.writeHead(204).end();
    });
    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: merchant.testKey,
      token: merchant.token,
      body: { url: `${receiver.url}/hooks`, events: ['invoice.paid', 'subscription.cancelled'] },
    });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await platform?.stop();
  });

  it("paying a checkout delivers invoice.paid with the seed's data fields; cancelling delivers subscription.cancelled", async () => {
    const plan = await api('POST', '/api/v1/plans', { apiKey: merchant.testKey, body: { name: 'Pro', amount: 49.5 } });
    const session = (
      await api('POST', '/api/v1/checkout/sessions', { apiKey: merchant.testKey, body: { plan_id: plan.body.id } })
    ).body;
    await payCheckoutPageInSandbox(platform.gatewayUrl, session.code, 'payer@example.com');
    const completed = (await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: merchant.testKey }))
      .body;
    expect(completed.status).toBe('COMPLETED');

    const paid = await waitForEvent('invoice.paid');
    expect(verified(paid)).toBe(true);
    expect(paid.body.data).toMatchObject({
      id: expect.any(String),
      amount: 49.5,
      currency: 'NGN',
      customer_email: 'payer@example.com',
      status: 'PAID',
      paid_at: expect.stringMatching(ISO_UTC),
      subscription_id: completed.subscription_id,
      customer_id: completed.customer_id,
    });
    expect(paid.body.created_at).toMatch(ISO_UTC);

    const cancelled = await api('POST', `/api/v1/subscriptions/${completed.subscription_id}/cancel`, {
      apiKey: merchant.testKey,
      body: {},
    });
    expect(cancelled.status).toBe(200);
    const event = await waitForEvent('subscription.cancelled');
    expect(verified(event)).toBe(true);
    expect(event.body.data).toMatchObject({
      id: completed.subscription_id,
      status: 'CANCELLED',
      customer_id: completed.customer_id,
      plan_id: plan.body.id,
    });
    expect(event.body.data).toHaveProperty('refund');
    // Exactly one delivery of each: the webhook asked for these two events only.
    expect(deliveries.map((d) => d.body.event).sort()).toEqual(['invoice.paid', 'subscription.cancelled']);

    // The envelopes on the stream carry billing's analytics facts (docs/api-behaviour.md §25);
    // the bodies delivered never do: only id, event, data and created_at.
    const stream = await platformEvents(platform);
    try {
      const published = await stream.waitFor('subscription.cancelled', (e) => e.id === event.body.id);
      expect(published.envelope.analytics).toEqual({
        kind: 'subscription_mrr',
        subscription_id: completed.subscription_id,
        customer_id: completed.customer_id,
        currency: 'NGN',
        status: 'CANCELLED',
        contributing: false,
        mrr: 0,
      });
      const paidEnvelope = await stream.waitFor('invoice.paid', (e) => e.id === paid.body.id);
      // 49.50 NGN charged to the card, untaxed.
      expect(paidEnvelope.envelope.analytics).toMatchObject({ kind: 'invoice_payment', charged: 4950, tax: 0 });
    } finally {
      await stream.close();
    }
    for (const delivery of deliveries) {
      expect(Object.keys(delivery.body).sort()).toEqual(['created_at', 'data', 'event', 'id']);
      expect(delivery.raw).not.toContain('analytics');
      expect(delivery.raw).not.toContain('subscription_mrr');
    }
  });
});
