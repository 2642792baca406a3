import { createHmac } from 'node:crypto';
import { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';
import { MerchantSite, type ReceivedRequest } from './support/merchant-site';

const WEBHOOK_PATH = '/api/v1/payments/paystack/webhook';

/**
 * The hosted page's callback and the provider's webhook complete the same session; they race.
 * The sandbox's webhooks are captured here so the test decides when they arrive.
 */
describe('checkout completion: callback and provider webhook racing, forged webhooks', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;
  let captured: MerchantSite;
  let sandbox: SandboxControlsClient;
  let planId: string;

  beforeAll(async () => {
    captured = await new MerchantSite().start();
    platform = await startPlatform({
      // What the suite reaches; the others' start would only cost CPU.
      only: ['identity', 'sandbox-provider', 'billing', 'catalog', 'gateway'],
      env: { SANDBOX_WEBHOOK_URL: `${captured.url}/provider-webhook` },
    });
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'race');
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    planId = (
      await api('POST', '/api/v1/plans', { apiKey: merchant.testKey, body: { name: 'Race plan', amount: 990 } })
    ).body.id;
  });
  afterAll(async () => {
    await platform?.stop();
    await captured?.stop();
  });

  /** Pays a new session at the sandbox; returns the callback URL and the captured webhook. */
  async function paidSession(email: string): Promise<{ code: string; callbackUrl: string; webhook: ReceivedRequest }> {
    const session = (
      await api('POST', '/api/v1/checkout/sessions', { apiKey: merchant.testKey, body: { plan_id: planId } })
    ).body;
    const pay = await fetch(`${platform.gatewayUrl}/checkout/${session.code}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email }),
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    const authorizationUrl = pay.headers.get('location')!;
    const outcome = await fetch(authorizationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ outcome: 'success' }),
      redirect: 'manual',
    });
    expect(outcome.status).toBe(303);
    const callbackUrl = outcome.headers.get('location')!;
    const reference = new URL(callbackUrl).searchParams.get('reference')!;
    const webhook = await captured.waitFor((r) => r.body.toString().includes(reference));
    return { code: session.code, callbackUrl, webhook };
  }

  const deliverWebhook = (body: Buffer, signature: string) =>
    fetch(`${platform.gatewayUrl}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
      body,
    });

  const getSession = async (code: string) =>
    (await api('GET', `/api/v1/checkout/sessions/${code}`, { apiKey: merchant.testKey })).body;

  it('refuses a forged provider webhook (bad signature) and changes nothing', async () => {
    const { code, webhook } = await paidSession('forged@example.com');
    const forged = createHmac('sha512', 'not-the-secret').update(webhook.body).digest('hex');
    const refused = await deliverWebhook(webhook.body, forged);
    expect(refused.status).toBe(401);
    expect((await deliverWebhook(webhook.body, '')).status).toBe(401);
    const tampered = Buffer.from(webhook.body.toString().replace('"success"', '"successful"'));
    expect((await deliverWebhook(tampered, String(webhook.headers['x-paystack-signature']))).status).toBe(401);
    expect((await getSession(code)).status).toBe('PENDING');
    const customers = await api('GET', '/api/v1/customers?email=forged@example.com', { apiKey: merchant.testKey });
    expect(customers.body).toEqual([]);

    // The genuine delivery completes it.
    const genuine = await deliverWebhook(webhook.body, String(webhook.headers['x-paystack-signature']));
    expect(genuine.status).toBe(200);
    expect((await getSession(code)).status).toBe('COMPLETED');
  });

  it('answers a webhook that is not one with a 4xx and a JSON detail: over 1 MiB 413, signed non-JSON 422', async () => {
    const huge = Buffer.alloc(1024 * 1024 + 1, 'a');
    const tooLarge = await deliverWebhook(huge, 'x');
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ detail: 'Request body too large' });

    const notJson = Buffer.from('charge.success but not JSON');
    const signed = createHmac('sha512', platform.env.SANDBOX_SECRET_KEY).update(notJson).digest('hex');
    const unreadable = await deliverWebhook(notJson, signed);
    expect(unreadable.status).toBe(422);
    expect(await unreadable.json()).toEqual({
      detail: [expect.objectContaining({ loc: ['body'], type: 'json_invalid' })],
    });

    const answered = await deliverWebhook(Buffer.from(JSON.stringify({ event: 'transfer.success', data: {} })), '');
    expect(answered.status).toBe(401);
    expect(answered.headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('20 times, callback and webhook fired together complete the session once: one customer, subscription, invoice, charge', async () => {
    const codes: string[] = [];
    for (let round = 0; round < 20; round++) {
      const { code, callbackUrl, webhook } = await paidSession(`race-${round}@example.com`);
      codes.push(code);
      const signature = String(webhook.headers['x-paystack-signature']);
      const answers = await Promise.all([
        fetch(callbackUrl, { redirect: 'manual' }),
        deliverWebhook(webhook.body, signature),
        fetch(callbackUrl, { redirect: 'manual' }),
        deliverWebhook(webhook.body, signature),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      const session = await getSession(code);
      expect(session.status).toBe('COMPLETED');
      expect(session.subscription_id).toEqual(expect.any(String));
    }

    const billing = platform.database('billing');
    const subscriptions = await queryDatabase<{ n: number; sessions: number }>(
      billing,
      'SELECT count(*)::int AS n, count(DISTINCT checkout_session_id)::int AS sessions FROM subscriptions',
    );
    // The forged-webhook test completed one session before this one.
    expect(subscriptions[0]).toEqual({ n: 21, sessions: 21 });
    const invoices = await queryDatabase<{ n: number }>(
      billing,
      `SELECT count(*)::int AS n FROM invoices WHERE status = 'PAID'`,
    );
    expect(invoices[0].n).toBe(21);
    const customers = await queryDatabase<{ n: number }>(billing, 'SELECT count(*)::int AS n FROM customers');
    expect(customers[0].n).toBe(21);
    const events = await queryDatabase<{ event_type: string; n: number }>(
      billing,
      `SELECT event_type, count(*)::int AS n FROM outbox_events GROUP BY event_type ORDER BY event_type`,
    );
    expect(Object.fromEntries(events.map((e) => [e.event_type, e.n]))).toMatchObject({
      'customer.created': 21,
      'subscription.created': 21,
      'invoice.paid': 21,
    });
    const completed = await queryDatabase<{ n: number }>(
      platform.database('catalog'),
      `SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'checkout.session.completed'`,
    );
    expect(completed[0].n).toBe(21);

    // The provider charged each customer exactly once.
    const ledger = await sandbox.ledger();
    const charges = ledger.transactions.filter((t) => t.status === 'success' && t.email.startsWith('race-'));
    expect(charges).toHaveLength(20);
    expect(new Set(charges.map((t) => t.email)).size).toBe(20);
    expect(ledger.refunds).toEqual([]);
  });

  it('one session hammered by 20 callbacks and 20 webhooks at once still completes once', async () => {
    const { code, callbackUrl, webhook } = await paidSession('hammer@example.com');
    const signature = String(webhook.headers['x-paystack-signature']);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 ? fetch(callbackUrl, { redirect: 'manual' }) : deliverWebhook(webhook.body, signature),
      ),
    );
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    const session = await getSession(code);
    const rows = await queryDatabase<{ n: number }>(
      platform.database('billing'),
      'SELECT count(*)::int AS n FROM subscriptions WHERE checkout_session_id = $1',
      [session.id],
    );
    expect(rows[0].n).toBe(1);
    const customer = await api('GET', `/api/v1/customers/${session.customer_id}`, { apiKey: merchant.testKey });
    expect(customer.body.subscriptions).toHaveLength(1);
    expect(customer.body.invoices).toHaveLength(1);
  });
});
