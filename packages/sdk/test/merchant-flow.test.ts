/**
 * A merchant's whole integration, driven only through @billing/sdk against the running platform:
 * register, create an API key, a webhook endpoint, a plan and a checkout session; a payer pays it
 * in the sandbox (the hosted page is HTML for browsers, not API); list the subscription and its
 * invoice, verify the signed delivery with verifyWebhook; then the client's own promises against
 * the real gateway: a 422 as a typed error, a POST whose answer was lost retried without creating
 * twice, and a 429 waited out as its Retry-After says.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  createReplica,
  listenLocally,
  payCheckoutPageInSandbox,
  sharedPlatform,
  type LocalEndpoint,
  type PlatformProcess,
  type SharedPlatform,
} from '@billing/testing';
import {
  BillingApiError,
  createBillingClient,
  verifyWebhook,
  WebhookVerificationError,
  type BillingClient,
  type Fetch,
  type Schema,
} from '@billing/sdk';

interface Delivery {
  headers: IncomingHttpHeaders;
  payload: Buffer;
}

/** One attempt as a fetch wrapper saw it. */
interface Attempt {
  at: number;
  idempotencyKey: string | null;
  status: number;
  retryAfter: string | null;
  replayed: string | null;
}

const recordAttempt = (attempts: Attempt[], request: Request, response: Response) =>
  attempts.push({
    at: Date.now(),
    idempotencyKey: request.headers.get('idempotency-key'),
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    replayed: response.headers.get('idempotent-replayed'),
  });

describe('a merchant integrates through the SDK alone', () => {
  let platform: SharedPlatform;
  let gateway: PlatformProcess;
  let gatewayUrl: string;
  let receiver: LocalEndpoint;
  const deliveries: Delivery[] = [];
  let accessToken: string;
  let testKey: string;
  let liveKey: string;
  let billing: BillingClient;
  let webhookSecret: string;
  let plan: Schema<'Plan'>;
  let session: Schema<'CheckoutSession'>;

  const waitForDelivery = async (event: string, ms = 20_000): Promise<Delivery> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = deliveries.find((d) => JSON.parse(d.payload.toString()).event === event);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`${event} was not delivered`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    platform = await sharedPlatform();
    // A gateway of its own on the shared services: the live keys get one request a second (two
    // per 2 s window) so the Retry-After test meets a real 429.
    const replica = await createReplica(platform, 'gateway', { RATE_LIMIT_LIVE_PER_SECOND: '1' });
    gateway = replica.process;
    await gateway.start();
    gatewayUrl = `http://127.0.0.1:${replica.port}`;
    receiver = await listenLocally((req, payload, res) => {
      deliveries.push({ headers: req.headers, payload });
      res.writeHead(204).end();
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await gateway?.stop();
    await platform?.stop();
  });

  it('registers, then creates an API key with the access token', async () => {
    const anonymous = createBillingClient({ baseUrl: gatewayUrl });
    const registration = await anonymous.post('/api/v1/auth/register', {
      body: {
        email: `sdk-${randomUUID().slice(0, 8)}@example.com`,
        business_name: 'SDK Ltd',
        password: 'pw-sdk-12345',
      },
    });
    accessToken = registration.access_token;
    liveKey = registration.api_keys.find((k) => k.is_live)!.key;

    const dashboard = createBillingClient({ baseUrl: gatewayUrl, accessToken });
    const [project] = await dashboard.get('/api/v1/projects');
    const key = await dashboard.post('/api/v1/api-keys', { body: { project_id: project.id, name: 'Checkout server' } });
    expect(key).toMatchObject({ project_id: project.id, name: 'Checkout server', is_live: false, is_active: true });
    expect(key.key).toMatch(/^svc_test_/);
    testKey = key.key;

    // Webhook routes take both credentials; the others use the one they need.
    billing = createBillingClient({ baseUrl: gatewayUrl, apiKey: testKey, accessToken });
    expect((await billing.get('/api/v1/projects/current')).id).toBe(project.id);
  });

  it('registers a webhook endpoint on its own server', async () => {
    const hook = await billing.post('/api/v1/webhooks', {
      body: { url: `${receiver.url}/billing-events`, events: ['invoice.paid'] },
    });
    expect(hook).toMatchObject({ url: `${receiver.url}/billing-events`, events: ['invoice.paid'], is_active: true });
    expect(hook.secret).toMatch(/^whsec_/);
    webhookSecret = hook.secret;
  });

  it('creates a plan and a checkout session, which a payer pays in the sandbox', async () => {
    plan = await billing.post('/api/v1/plans', { body: { name: 'Pro', amount: 49.5, interval: 'monthly' } });
    expect(plan).toMatchObject({ name: 'Pro', amount: 49.5, currency: 'NGN', is_active: true });

    session = await billing.post('/api/v1/checkout/sessions', { body: { plan_id: plan.id } });
    expect(session).toMatchObject({ plan_id: plan.id, status: 'PENDING', livemode: false });

    await payCheckoutPageInSandbox(gatewayUrl, session.code, 'payer@example.com');
    session = await billing.get('/api/v1/checkout/sessions/{code}', { params: { path: { code: session.code } } });
    expect(session.status).toBe('COMPLETED');
    expect(session.subscription_id).toEqual(expect.any(String));
  });

  it('lists the subscription and its paid invoice', async () => {
    const subscriptions = await billing.get('/api/v1/subscriptions', { params: { query: { plan_id: plan.id } } });
    expect(subscriptions).toEqual([
      expect.objectContaining({
        id: session.subscription_id,
        status: 'ACTIVE',
        plan_name: 'Pro',
        customer_email: 'payer@example.com',
      }),
    ]);

    const invoices = await billing.get('/api/v1/invoices', {
      params: { query: { subscription_id: session.subscription_id! } },
    });
    expect(invoices).toEqual([
      expect.objectContaining({ subscription_id: session.subscription_id, status: 'PAID', amount: 49.5 }),
    ]);
  });

  it("downloads the paid invoice's PDF, and its hosted_invoice_url opens without a key", async () => {
    const [invoice] = await billing.get('/api/v1/invoices', {
      params: { query: { subscription_id: session.subscription_id! } },
    });
    const pdf = await billing.get('/api/v1/invoices/{invoice_id}/pdf', {
      params: { path: { invoice_id: invoice.id } },
      parseAs: 'arrayBuffer',
    });
    expect(
      Buffer.from(pdf as ArrayBuffer)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect((await fetch(invoice.hosted_invoice_url)).status).toBe(200);
  });

  it('verifies the invoice.paid delivery with verifyWebhook, by either signature scheme', async () => {
    const delivery = await waitForDelivery('invoice.paid');
    const event = verifyWebhook<Schema<'Invoice'>>({
      payload: delivery.payload,
      headers: delivery.headers,
      secret: webhookSecret,
    });
    expect(event.event).toBe('invoice.paid');
    expect(event.data).toMatchObject({ subscription_id: session.subscription_id, status: 'PAID', amount: 49.5 });

    // The seed's X-Signature alone, as an integration written for it reads the same delivery.
    const seedOnly = Object.fromEntries(
      Object.entries(delivery.headers).filter(([name]) => !name.startsWith('webhook-')),
    );
    expect(verifyWebhook({ payload: delivery.payload, headers: seedOnly, secret: webhookSecret })).toEqual(event);

    const forged = Buffer.from(delivery.payload.toString().replace('"PAID"', '"VOID"'));
    expect(() => verifyWebhook({ payload: forged, headers: delivery.headers, secret: webhookSecret })).toThrow(
      WebhookVerificationError,
    );
  });

  it('surfaces a 422 as a BillingApiError carrying the violations', async () => {
    const error = await billing.post('/api/v1/plans', { body: { name: '', amount: -5 } }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BillingApiError);
    const { status, violations, requestId } = error as BillingApiError;
    expect(status).toBe(422);
    expect(violations.map((v) => v.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'name'],
        ['body', 'amount'],
      ]),
    );
    expect(requestId).toEqual(expect.any(String));
  });

  it('retries a POST whose answer was lost with the same Idempotency-Key, and the plan exists once', async () => {
    const attempts: Attempt[] = [];
    let lostOne = false;
    // The gateway handles the first attempt; its answer is lost on the way back, as on a reset connection.
    const losingFirstAnswer: Fetch = async (request) => {
      const response = await fetch(request);
      recordAttempt(attempts, request, response);
      if (lostOne) return response;
      lostOne = true;
      await response.arrayBuffer();
      throw new TypeError('fetch failed: the connection closed after the request was sent');
    };
    const flaky = createBillingClient({ baseUrl: gatewayUrl, apiKey: testKey, fetch: losingFirstAnswer });
    const name = `Retried ${randomUUID()}`;
    const created = await flaky.post('/api/v1/plans', { body: { name, amount: 10 } });

    expect(attempts).toHaveLength(2);
    expect(attempts[1].idempotencyKey).toBe(attempts[0].idempotencyKey);
    expect(attempts[0]).toMatchObject({ status: 201, replayed: null });
    expect(attempts[1]).toMatchObject({ status: 201, replayed: 'true' });
    const plans = await billing.get('/api/v1/plans', { params: { query: { limit: 100 } } });
    expect(plans.filter((p) => p.name === name).map((p) => p.id)).toEqual([created.id]);
  });

  it('waits out a real 429 for its Retry-After, then retries with the same key and succeeds', async () => {
    const attempts: Attempt[] = [];
    const observed: Fetch = async (request) => {
      const response = await fetch(request);
      recordAttempt(attempts, request, response);
      return response;
    };
    const live = createBillingClient({ baseUrl: gatewayUrl, apiKey: liveKey, fetch: observed });
    // Two requests fill the live key's 2 s window; the third is refused until the window ends.
    for (let i = 0; i < 4 && !attempts.some((a) => a.status === 429); i++) {
      await live.post('/api/v1/plans', { body: { name: `Live ${i}`, amount: 20 } });
    }
    const refused = attempts.findIndex((a) => a.status === 429);
    expect(refused).toBeGreaterThan(0);
    const [limited, retried] = attempts.slice(refused, refused + 2);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(retried.status).toBe(201);
    expect(retried.idempotencyKey).toBe(limited.idempotencyKey);
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(Number(limited.retryAfter) * 1000 - 5);
  });
});
