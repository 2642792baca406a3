import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { connect, type NatsConnection } from 'nats';
import { Webhook } from 'standardwebhooks';
import {
  listenLocally,
  queryDatabase,
  startPlatform,
  TEST_NATS_URL,
  type LocalEndpoint,
  type PlatformUnderTest,
} from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';

const CATALOGUE = [
  'checkout.session.completed',
  'checkout.session.expired',
  'customer.created',
  'subscription.created',
  'subscription.trial_will_end',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.cancelled',
  'subscription.expired',
  'invoice.created',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.voided',
  'refund.processed',
  'credit_note.created',
];
/** Shortened schedule: 4 waits after attempts 1-4, in ms. */
const DELAYS = [300, 600, 900, 1200];
// Long enough that a loaded CI machine still moves an event to a delivery within it (the
// isolation test compares a delivery's arrival with it), short enough for the hanging test.
const TIMEOUT_MS = 3000;

interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A merchant's endpoint: each path behaves as its name says, and every request is kept. */
class Receiver {
  readonly receipts: Receipt[] = [];
  /** Paths that answer 500 until removed from here. */
  readonly down = new Set<string>();
  private endpoint?: LocalEndpoint;
  private readonly hanging: ServerResponse[] = [];
  url = '';

  async start(): Promise<this> {
    this.endpoint = await listenLocally((req, body, res) => {
      const path = req.url ?? '';
      this.receipts.push({ path, headers: req.headers, body: body.toString('utf8'), at: Date.now() });
      const seen = this.receipts.filter((r) => r.path === path).length;
      if ((path.startsWith('/hang') && seen === 1) || path.startsWith('/slow')) return void this.hanging.push(res);
      const failing = path.startsWith('/always-500') || this.down.has(path);
      const status = failing ? 500 : path.startsWith('/flaky') && seen <= 2 ? 503 : 200;
      res.writeHead(status).end();
    });
    this.url = this.endpoint.url;
    return this;
  }

  at(path: string): Receipt[] {
    return this.receipts.filter((r) => r.path === path);
  }

  async waitFor(path: string, count: number, ms = 15_000): Promise<Receipt[]> {
    const deadline = Date.now() + ms;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${count} requests arrived`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.at(path);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await this.endpoint?.close();
  }
}

/** The seed's rule: hex HMAC-SHA256 of the raw body keyed with the secret, compared in constant time. */
function seedSignatureValid(receipt: Receipt, secret: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(receipt.body).digest('hex'));
  const given = Buffer.from(String(receipt.headers['x-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhook deliveries (JetStream -> notification -> a merchant endpoint)', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let acme: RegisteredMerchant;
  let nats: NatsConnection;
  let receiver: Receiver;

  const as = (m: RegisteredMerchant) => ({ apiKey: m.testKey, token: m.token });
  const register = async (path: string, events: string[], merchant: RegisteredMerchant = acme) => {
    const res = await api('POST', '/api/v1/webhooks', {
      ...as(merchant),
      body: { url: `${receiver.url}${path}`, events },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  /** An event as the platform's outbox relays publish it. */
  const publish = async (
    event: string,
    data: Record<string, unknown> = {},
    id = randomUUID(),
    projectId = acme.projectId,
  ) => {
    const envelope = {
      id,
      event,
      data,
      created_at: new Date().toISOString(),
      project_id: projectId,
      livemode: false,
    };
    await nats.jetstream().publish(`${platform.eventsSubjectPrefix}.${event}`, JSON.stringify(envelope));
    return envelope;
  };
  const deliveriesOf = (webhookId: string) =>
    queryDatabase<{ id: string; status: string; attempts: number; event_id: string }>(
      platform.database('notification'),
      'SELECT id, status, attempts, event_id FROM deliveries WHERE webhook_id = $1',
      [webhookId],
    );
  const waitForStatus = async (webhookId: string, status: string, ms = 15_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const rows = await deliveriesOf(webhookId);
      if (rows.length > 0 && rows.every((r) => r.status === status)) return rows;
      if (Date.now() > deadline) throw new Error(`deliveries not ${status}: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    platform = await startPlatform({
      only: ['identity', 'notification', 'gateway'],
      env: {
        ALLOW_INSECURE_WEBHOOKS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','),
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        DELIVERY_POLL_MS: '50',
      },
    });
    api = gatewayApi(platform.gatewayUrl);
    acme = await registerMerchant(api, 'deliveries');
    nats = await connect({ servers: TEST_NATS_URL });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await nats?.drain();
    await platform?.stop();
  });

  it('signs every event type so that standardwebhooks and the seed X-Signature rule both verify it', async () => {
    const hook = await register('/all', ['*']);
    const sent = [];
    for (const event of CATALOGUE) sent.push(await publish(event, { example: event }));
    const receipts = await receiver.waitFor('/all', CATALOGUE.length);
    const verifier = new Webhook(hook.secret);
    for (const receipt of receipts) {
      expect(seedSignatureValid(receipt, hook.secret)).toBe(true);
      const verified = verifier.verify(receipt.body, {
        'webhook-id': String(receipt.headers['webhook-id']),
        'webhook-timestamp': String(receipt.headers['webhook-timestamp']),
        'webhook-signature': String(receipt.headers['webhook-signature']),
      });
      expect(verified).toEqual(JSON.parse(receipt.body));
      expect(receipt.headers['x-webhook-id']).toBe(receipt.headers['webhook-id']);
      expect(Math.abs(Number(receipt.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      // A tampered body fails both.
      const tampered = { ...receipt, body: receipt.body.replace('"example"', '"exemple"') };
      expect(seedSignatureValid(tampered, hook.secret)).toBe(false);
      expect(() =>
        verifier.verify(tampered.body, {
          'webhook-id': String(receipt.headers['webhook-id']),
          'webhook-timestamp': String(receipt.headers['webhook-timestamp']),
          'webhook-signature': String(receipt.headers['webhook-signature']),
        }),
      ).toThrow();
    }
    const bodies = receipts.map(
      (r) => JSON.parse(r.body) as { id: string; event: string; data: unknown; created_at: string },
    );
    expect(bodies.map((b) => b.event).sort()).toEqual([...CATALOGUE].sort());
    for (const body of bodies) {
      const envelope = sent.find((s) => s.id === body.id)!;
      expect(body).toEqual({
        id: envelope.id,
        event: envelope.event,
        data: envelope.data,
        created_at: envelope.created_at,
      });
    }
    expect((await waitForStatus(hook.id, 'SUCCEEDED')).length).toBe(CATALOGUE.length);
  });

  it('only sends a webhook the events it asked for, and a duplicated event once', async () => {
    const hook = await register('/paid-only', ['invoice.paid']);
    await publish('invoice.created');
    const twice = randomUUID();
    await publish('invoice.paid', { n: 1 }, twice);
    await publish('invoice.paid', { n: 1 }, twice);
    await receiver.waitFor('/paid-only', 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/paid-only')).toHaveLength(1);
    expect(JSON.parse(receiver.at('/paid-only')[0].body).id).toBe(twice);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
  });

  it('an always-500 receiver gets exactly 5 attempts with one X-Webhook-Id, spaced by the schedule, then FAILED', async () => {
    const hook = await register('/always-500', ['invoice.paid']);
    await publish('invoice.paid');
    const attempts = await receiver.waitFor('/always-500', 5);
    const [delivery] = await waitForStatus(hook.id, 'FAILED');
    // FAILED schedules nothing; a sixth attempt, which must not come, has no event to wait for:
    // wait out more than the longest gap of the schedule.
    await new Promise((r) => setTimeout(r, DELAYS[3] + 300));
    expect(receiver.at('/always-500')).toHaveLength(5);
    expect(new Set(attempts.map((a) => a.headers['x-webhook-id']))).toEqual(new Set([delivery.id]));
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i].at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(DELAYS[i] - 20));
    expect(delivery.attempts).toBe(5);
    const log = await queryDatabase<{ attempt: number; status_code: number; error: string }>(
      platform.database('notification'),
      'SELECT attempt, status_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [delivery.id],
    );
    expect(log).toEqual([1, 2, 3, 4, 5].map((attempt) => ({ attempt, status_code: 500, error: 'HTTP 500' })));
  });

  it('a receiver failing twice then answering 200 gets 3 attempts and the delivery SUCCEEDED', async () => {
    const hook = await register('/flaky', ['invoice.paid']);
    await publish('invoice.paid');
    await waitForStatus(hook.id, 'SUCCEEDED');
    expect(receiver.at('/flaky')).toHaveLength(3);
    expect((await deliveriesOf(hook.id))[0].attempts).toBe(3);
  });

  it('a hanging receiver times out and the delivery is retried', async () => {
    const hook = await register('/hang', ['invoice.paid']);
    await publish('invoice.paid');
    await receiver.waitFor('/hang', 2, 10_000);
    const [delivery] = await waitForStatus(hook.id, 'SUCCEEDED');
    const log = await queryDatabase<{ attempt: number; status_code: number | null; error: string | null }>(
      platform.database('notification'),
      'SELECT attempt, status_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [delivery.id],
    );
    expect(log).toEqual([
      { attempt: 1, status_code: null, error: `no answer within ${TIMEOUT_MS} ms` },
      { attempt: 2, status_code: 200, error: null },
    ]);
  });

  it('a deleted webhook gets nothing more', async () => {
    const hook = await register('/deleted', ['invoice.paid']);
    await publish('invoice.paid');
    await receiver.waitFor('/deleted', 1);
    expect((await api('DELETE', `/api/v1/webhooks/${hook.id}`, as(acme))).status).toBe(204);
    await publish('invoice.paid');
    await publish('invoice.paid');
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.at('/deleted')).toHaveLength(1);
  });

  it('POST /webhooks/test delivers a signed mock of the kind asked for: 202 {delivery_id, event, status}', async () => {
    const hook = await register('/test-send', ['subscription.cancelled']);
    const sent = await api('POST', '/api/v1/webhooks/test', {
      ...as(acme),
      body: { webhook_id: hook.id, event: 'invoice.paid' },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ delivery_id: expect.any(String), event: 'invoice.paid', status: 'PENDING' });
    const [receipt] = await receiver.waitFor('/test-send', 1);
    expect(receipt.headers['x-webhook-id']).toBe(sent.body.delivery_id);
    expect(seedSignatureValid(receipt, hook.secret)).toBe(true);
    const body = new Webhook(hook.secret).verify(receipt.body, {
      'webhook-id': String(receipt.headers['webhook-id']),
      'webhook-timestamp': String(receipt.headers['webhook-timestamp']),
      'webhook-signature': String(receipt.headers['webhook-signature']),
    }) as { event: string; data: Record<string, unknown> };
    expect(body.event).toBe('invoice.paid');
    expect(body.data).toMatchObject({
      test: true,
      status: 'PAID',
      currency: 'NGN',
      customer_email: expect.any(String),
    });

    const unknown = await api('POST', '/api/v1/webhooks/test', {
      ...as(acme),
      body: { webhook_id: hook.id, event: 'invoice.exploded' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'event'], type: 'enum' });
    const other = await registerMerchant(api, 'deliveries-other');
    const foreign = await api('POST', '/api/v1/webhooks/test', {
      apiKey: other.testKey,
      token: other.token,
      body: { webhook_id: hook.id, event: 'invoice.paid' },
    });
    expect(foreign.status).toBe(403);
  });

  it('delivery logs list a FAILED delivery with its attempts; a manual retry sends it once more and it succeeds', async () => {
    receiver.down.add('/recovering');
    const hook = await register('/recovering', ['invoice.paid']);
    const event = await publish('invoice.paid', { amount: 50 });
    const [failed] = await waitForStatus(hook.id, 'FAILED');

    const listed = await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=FAILED`, as(acme));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      {
        id: failed.id,
        webhook_id: hook.id,
        event: 'invoice.paid',
        status: 'FAILED',
        attempts: 5,
        last_status_code: 500,
        last_error: 'HTTP 500',
        next_attempt_at: null,
        created_at: expect.any(String),
        delivered_at: null,
        livemode: false,
      },
    ]);
    expect((await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=SUCCEEDED`, as(acme))).body).toEqual([]);
    expect((await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=LOST`, as(acme))).status).toBe(422);
    expect(
      (await api('GET', `/api/v1/webhooks/${hook.id}/deliveries?starting_after=${randomUUID()}`, as(acme))).status,
    ).toBe(400);

    const detail = await api('GET', `/api/v1/webhooks/deliveries/${failed.id}`, as(acme));
    expect(detail.status).toBe(200);
    expect(detail.body.payload).toEqual({
      id: event.id,
      event: 'invoice.paid',
      data: { amount: 50 },
      created_at: event.created_at,
    });
    expect(
      detail.body.attempt_log.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
    ).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
      [5, 500],
    ]);

    receiver.down.delete('/recovering');
    const retried = await api('POST', `/api/v1/webhooks/deliveries/${failed.id}/retry`, as(acme));
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'RETRYING', attempts: 5 });
    const [done] = await waitForStatus(hook.id, 'SUCCEEDED');
    expect(done.attempts).toBe(6);
    const receipts = receiver.at('/recovering');
    expect(receipts).toHaveLength(6);
    expect(new Set(receipts.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([failed.id]));
    // Both credentials of the webhook's own merchant on every delivery route.
    const stranger = await registerMerchant(api, 'deliveries-stranger');
    const routes: [string, string, unknown?][] = [
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['GET', `/api/v1/webhooks/deliveries/${failed.id}`],
      ['POST', `/api/v1/webhooks/deliveries/${failed.id}/retry`],
      ['POST', '/api/v1/webhooks/test', { webhook_id: hook.id, event: 'invoice.paid' }],
    ];
    for (const [method, path, body] of routes) {
      const keyOnly = await api(method, path, { apiKey: acme.testKey, body });
      const tokenOnly = await api(method, path, { token: acme.token, body });
      const foreign = await api(method, path, { apiKey: stranger.testKey, token: stranger.token, body });
      expect([path, keyOnly.status, tokenOnly.status, foreign.status]).toEqual([path, 401, 401, 403]);
    }
    // Only a FAILED delivery can be retried.
    expect((await api('POST', `/api/v1/webhooks/deliveries/${failed.id}/retry`, as(acme))).status).toBe(400);
    expect((await api('GET', `/api/v1/webhooks/deliveries/${randomUUID()}`, as(acme))).status).toBe(404);
  });

  it("a receiver that never answers does not delay another merchant's deliveries", async () => {
    const other = await registerMerchant(api, 'deliveries-fast');
    await register('/fast', ['invoice.paid'], other);
    await register('/slow', ['invoice.paid']);
    for (let k = 0; k < 40; k++) await publish('invoice.paid', { k });
    await receiver.waitFor('/slow', 40);
    const firstSlow = receiver.at('/slow')[0].at;
    // All 40 attempts are now waiting for answers that never come. Were the worker held by them,
    // the other merchant's delivery could not go before they time out.
    await publish('invoice.paid', {}, randomUUID(), other.projectId);
    const [fast] = await receiver.waitFor('/fast', 1);
    expect(fast.at).toBeLessThan(firstSlow + TIMEOUT_MS);
  });
});
