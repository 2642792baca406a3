/**
 * @lane timing-critical freezes the sandbox provider and a short-deadline gateway
 */
import { randomUUID } from 'node:crypto';
import { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, startPlatform, type PlatformProcess, type PlatformUnderTest } from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  startGatewayReplica,
  type Api,
  type ApiResponse,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';

/**
 * Money-moving retries (docs/idempotency.md): the gateway's deadline passes while billing is
 * still charging (the sandbox provider frozen with SIGSTOP), and the merchant retries with the
 * same Idempotency-Key. A second gateway with a short deadline takes those calls; the platform's
 * own gateway (long deadline) does the set-up.
 */
describe('Idempotency-Key on charges after a gateway timeout', () => {
  const SHORT_DEADLINE_MS = 1500;
  const FROZEN_MS = 3500;
  /**
   * Billing settles a charge whose outcome it does not know after this long (30 s by default):
   * past the freeze (by 2.5 s), so settlement never asks a frozen provider, and short enough that
   * a charge lost in the freeze does not hold the suite for half a minute.
   */
  const SETTLE_AFTER_MS = 6_000;
  let platform: PlatformUnderTest;
  let shortGateway: PlatformProcess;
  let api: Api;
  let hasty: Api;
  let sandbox: SandboxControlsClient;
  let m: RegisteredMerchant;

  beforeAll(async () => {
    platform = await startPlatform({
      // What the suite reaches; the others' start would only cost CPU.
      only: ['identity', 'sandbox-provider', 'policy', 'billing', 'catalog', 'analytics', 'gateway'],
      env: { PAYMENT_SETTLE_AFTER_MS: String(SETTLE_AFTER_MS) },
    });
    const started = await startGatewayReplica(platform, { GRPC_DEADLINE_MS: String(SHORT_DEADLINE_MS) });
    shortGateway = started.process;
    api = gatewayApi(platform.gatewayUrl);
    hasty = gatewayApi(started.url);
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    m = await registerMerchant(api, 'idem-charges');
  }, 240_000);
  afterAll(async () => {
    platform?.processes['sandbox-provider'].signal('SIGCONT');
    await shortGateway?.stop();
    await platform?.stop();
  }, 60_000);

  const post = (path: string, body: unknown = {}) => api('POST', `/api/v1${path}`, { apiKey: m.testKey, body });
  const createPlan = async (body: object): Promise<string> => {
    const res = await post('/plans', body);
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const successfulCharges = async (email: string) =>
    (await sandbox.ledger({ email })).transactions.filter(
      (t) => t.channel === 'authorization' && t.status === 'success',
    );

  /**
   * Sends `send` while the provider is frozen: the first attempt and every retry during the
   * freeze time out at the short gateway (503). Then the provider wakes and the retries go on
   * until an answer that is not a 503. Returns every answer, in order.
   */
  async function retryThroughFreeze(send: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
    const provider = platform.processes['sandbox-provider'];
    const answers: ApiResponse[] = [];
    provider.signal('SIGSTOP');
    const frozenUntil = Date.now() + FROZEN_MS;
    try {
      while (Date.now() < frozenUntil) answers.push(await send());
    } finally {
      provider.signal('SIGCONT');
    }
    // A charge lost on its way (the frozen provider reset the connection) is settled as never
    // made after PAYMENT_SETTLE_AFTER_MS (SETTLE_AFTER_MS); until then the retries wait with 503.
    const deadline = Date.now() + 100_000;
    for (;;) {
      const res = await send();
      answers.push(res);
      if (res.status !== 503 || Date.now() > deadline) return answers;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('POST /subscriptions retried with the same key after a timeout: one subscription, one successful charge', async () => {
    const checkoutPlan = await createPlan({ name: `Checkout ${randomUUID()}`, amount: 100 });
    const plan = await createPlan({ name: `Retried ${randomUUID()}`, amount: 4200 });
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, checkoutPlan, 'idem-sub');
    expect(await successfulCharges(payer.email)).toHaveLength(0);
    const key = `sub-${randomUUID()}`;
    const send = () =>
      hasty('POST', '/api/v1/subscriptions', {
        apiKey: m.testKey,
        body: { customer_id: payer.customerId, plan_id: plan },
        headers: { 'Idempotency-Key': key },
      });

    const answers = await retryThroughFreeze(send);
    // The first attempt timed out at the gateway while billing was charging.
    expect(answers[0].status).toBe(503);
    expect(answers[0].headers.get('retry-after')).toBe('1');
    const last = answers[answers.length - 1];
    expect(last.status).toBe(201);
    expect(last.body).toMatchObject({ customer_id: payer.customerId, plan_id: plan, status: 'ACTIVE' });

    // Once answered, the answer is replayed.
    const replay = await send();
    expect([replay.status, replay.text, replay.headers.get('idempotent-replayed')]).toEqual([201, last.text, 'true']);

    const subscriptions = await api(
      'GET',
      `/api/v1/subscriptions?customer_id=${payer.customerId}&plan_id=${plan}&limit=100`,
      { apiKey: m.testKey },
    );
    expect(subscriptions.status).toBe(200);
    expect((subscriptions.body as { id: string }[]).map((s) => s.id)).toEqual([last.body.id]);
    const charges = await successfulCharges(payer.email);
    expect(charges).toHaveLength(1);
    expect(charges[0].amount).toBe(420_000); // the ledger counts minor units
    // Nothing to refund either: the first charge is the subscription's.
    const refunds = await queryDatabase(platform.database('billing'), 'SELECT id FROM refunds WHERE reason = $1', [
      'ABANDONED_CHARGE',
    ]);
    expect(refunds).toHaveLength(0);
  }, 200_000);

  it('POST /invoices/{id}/pay retried with the same key after a timeout: one successful charge, the invoice PAID', async () => {
    const weekly = await createPlan({ name: `Weekly ${randomUUID()}`, amount: 900, interval: 'weekly' });
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, weekly, 'idem-pay');
    // The renewal a week later is declined: its invoice stays OPEN.
    expect((await post(`/test-helpers/customers/${payer.customerId}/card`, { behavior: 'decline' })).status).toBe(200);
    const subscription = await api('GET', `/api/v1/subscriptions/${payer.subscriptionId}`, { apiKey: m.testKey });
    const renewal = Date.parse(subscription.body.current_period_end) + 5 * 60_000;
    const advanced = await post('/test-clock/advance', { to: new Date(renewal).toISOString() });
    expect(advanced.status).toBe(200);
    let open: { id: string; status: string } | undefined;
    for (let i = 0; i < 100 && !open; i += 1) {
      const invoices = await api('GET', `/api/v1/invoices?subscription_id=${payer.subscriptionId}`, {
        apiKey: m.testKey,
      });
      open = (invoices.body as { id: string; status: string; attempt_count: number }[]).find(
        (inv) => inv.status === 'OPEN' && inv.attempt_count === 1,
      );
      if (!open) await new Promise((r) => setTimeout(r, 200));
    }
    expect(open).toBeDefined();
    expect((await post(`/test-helpers/customers/${payer.customerId}/card`, { behavior: 'succeed' })).status).toBe(200);
    const before = await successfulCharges(payer.email);

    const key = `pay-${randomUUID()}`;
    const send = () =>
      hasty('POST', `/api/v1/invoices/${open!.id}/pay`, { apiKey: m.testKey, headers: { 'Idempotency-Key': key } });
    const answers = await retryThroughFreeze(send);
    expect(answers[0].status).toBe(503);
    const last = answers[answers.length - 1];
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ id: open!.id, status: 'PAID', amount_paid: 900 });
    const replay = await send();
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);

    const after = await successfulCharges(payer.email);
    expect(after.length - before.length).toBe(1);
    const payments = await queryDatabase<{ status: string }>(
      platform.database('billing'),
      'SELECT status FROM payments WHERE invoice_id = $1 ORDER BY created_at',
      [open!.id],
    );
    expect(payments.map((p) => p.status).filter((s) => s === 'SUCCEEDED')).toHaveLength(1);
    expect(payments.map((p) => p.status)).not.toContain('PENDING');
  }, 200_000);

  it('a 503 to a POST without Idempotency-Key says the outcome is unknown and carries no Retry-After', async () => {
    const provider = platform.processes['sandbox-provider'];
    const checkoutPlan = await createPlan({ name: `Keyless ${randomUUID()}`, amount: 100 });
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, checkoutPlan, 'idem-keyless');
    provider.signal('SIGSTOP');
    let res: ApiResponse;
    try {
      res = await hasty('POST', '/api/v1/subscriptions', {
        apiKey: m.testKey,
        body: { customer_id: payer.customerId, plan_id: checkoutPlan },
      });
    } finally {
      provider.signal('SIGCONT');
    }
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/outcome of this request is unknown/);
    expect(res.body.detail).toMatch(/without an Idempotency-Key may repeat it/);
    expect(res.headers.get('retry-after')).toBeNull();
  }, 60_000);
});
