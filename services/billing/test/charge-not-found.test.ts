/**
 * @lane timing-critical holds the provider's answers past billing's timeout
 */
import { randomUUID } from 'node:crypto';
import { SandboxControlsClient } from '@billing/payments';
import { freePort, queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';
import { HoldingProxy } from './support/holding-proxy';

const AMOUNT = 2500;
/** Billing's provider timeout here (PROVIDER_TIMEOUT_MS; 15 s by default). */
const PROVIDER_TIMEOUT_MS = 2_000;

/**
 * A renewal charge whose verification says "not found" never leads to a second successful
 * charge of the same invoice attempt (docs/payment-recovery.md): settlement resends it under
 * the same reference instead of moving on to a new one.
 */
describe('charges unknown to the provider that land late', () => {
  let platform: PlatformUnderTest;
  let proxy: HoldingProxy;
  let sandbox: SandboxControlsClient;
  let testKey: string;

  beforeAll(async () => {
    const sandboxPort = await freePort();
    proxy = new HoldingProxy(await freePort(), `http://127.0.0.1:${sandboxPort}`);
    await proxy.start();
    platform = await startPlatform({
      // What the suite reaches; the others' start would only cost CPU.
      only: ['identity', 'sandbox-provider', 'billing', 'catalog', 'policy', 'gateway'],
      env: {
        SANDBOX_PROVIDER_PORT: String(sandboxPort),
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${proxy.port}`,
        RENEWAL_POLL_MS: '200',
        PAYMENT_SETTLE_AFTER_MS: '1000',
        PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      },
    });
    sandbox = new SandboxControlsClient({
      baseUrl: `http://127.0.0.1:${sandboxPort}`,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    const registered = await api('POST', '/auth/register', {
      email: `notfound-${randomUUID().slice(0, 8)}@example.com`,
      business_name: 'Not Found Ltd',
      password: 'password-123',
    });
    testKey = (registered.body as { api_keys: { key: string }[] }).api_keys[0].key;
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
    await proxy?.stop();
  });

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${platform.gatewayUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(testKey ? { 'x-api-key': testKey } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual' as const,
  });

  async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** A paid hosted checkout of a new monthly plan: its subscription, customer and plan. */
  async function paidCheckout() {
    const planId = (await api('POST', '/plans', { name: 'Monthly', amount: AMOUNT / 100 })).body.id as string;
    const session = (await api('POST', '/checkout/sessions', { plan_id: planId })).body as { code: string };
    const email = `payer-${randomUUID().slice(0, 8)}@example.com`;
    const pay = await fetch(`${platform.gatewayUrl}/checkout/${session.code}/pay`, form({ email }));
    const outcome = await fetch(pay.headers.get('location')!, form({ outcome: 'success' }));
    await fetch(outcome.headers.get('location')!, { redirect: 'manual' });
    const completed = (await api('GET', `/checkout/sessions/${session.code}`)).body;
    expect(completed.subscription_id).toBeTruthy();
    return {
      planId,
      email,
      subscriptionId: completed.subscription_id as string,
      customerId: completed.customer_id as string,
    };
  }

  /** Ends the subscription's period now: the scheduler renews it, and the proxy holds its charge. */
  async function holdRenewalCharge(subscriptionId: string): Promise<string> {
    proxy.arm();
    await queryDatabase(
      platform.database('billing'),
      `UPDATE subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1`,
      [subscriptionId],
    );
    await waitUntil('the renewal charge to be held', async () => proxy.held.length === 1);
    return proxy.held[0];
  }

  it('resends under the same reference: one successful charge of the invoice, even when the first arrives late', async () => {
    const { email, subscriptionId } = await paidCheckout();

    const reference = await holdRenewalCharge(subscriptionId);
    const billingDb = platform.database('billing');
    expect(reference).toMatch(/^inv-[0-9a-f]{32}-1$/);

    // Billing times out (PROVIDER_TIMEOUT_MS), settlement finds "not found" and resends the same charge.
    const paid = async () =>
      (
        await queryDatabase<{ status: string }>(
          billingDb,
          `SELECT i.status FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE p.reference = $1`,
          [reference],
        )
      )[0]?.status === 'PAID';
    await waitUntil('the renewal invoice paid', paid, 90_000);
    // The held request now reaches the provider: the same reference, so no second charge.
    expect(await proxy.forwardedLate[0]).toBe(200);
    // What must not happen has no event to wait for: a second charge or payment row after the
    // late request. A second is what the sandbox's webhook needs to reach billing on this machine.
    await new Promise((r) => setTimeout(r, 1000));

    const renewals = (await sandbox.ledger({ email })).transactions.filter((t) => t.channel === 'authorization');
    expect(renewals.map((t) => [t.reference, t.status])).toEqual([[reference, 'success']]);
    const payments = await queryDatabase<{ reference: string; status: string }>(
      billingDb,
      `SELECT p.reference, p.status FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE i.subscription_id = $1 AND p.reference LIKE 'inv-%' ORDER BY p.reference`,
      [subscriptionId],
    );
    expect(payments).toEqual([{ reference, status: 'SUCCEEDED' }]);
  }, 180_000);

  it('a first charge found unknown that lands after the retry charged again is refunded: one charge kept', async () => {
    const { planId, email, customerId } = await paidCheckout();
    const key = `first-${randomUUID()}`;
    const subscribe = () =>
      fetch(`${platform.gatewayUrl}/api/v1/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': testKey, 'idempotency-key': key },
        body: JSON.stringify({ customer_id: customerId, plan_id: planId }),
      });

    // The first charge is held: billing times out, and settlement finds it unknown ("not found").
    proxy.arm();
    const first = await subscribe();
    expect(first.status).toBe(503);
    const [late] = proxy.held;
    expect(late).toMatch(/^sub-/);
    const billingDb = platform.database('billing');
    const paymentOf = async (reference: string) =>
      (
        await queryDatabase<{ status: string; gateway_response: string | null }>(
          billingDb,
          'SELECT status, gateway_response FROM payments WHERE reference = $1',
          [reference],
        )
      )[0];
    await waitUntil(
      'settlement to find the first charge unknown',
      async () => (await paymentOf(late))?.status === 'FAILED',
    );

    // The caller's retry, same key: a new charge under a new reference creates the subscription.
    const retried = await subscribe();
    expect(retried.status).toBe(201);
    // The held request lands: the provider charges the first reference too.
    expect(await proxy.forwardedLate[0]).toBe(200);
    await waitUntil('the late charge to be refunded', async () =>
      (await sandbox.ledger({ email })).refunds.some(
        (r) => r.transaction_reference === late && r.status === 'processed',
      ),
    );

    const ledger = await sandbox.ledger({ email });
    const firstCharges = ledger.transactions.filter((t) => t.reference.startsWith('sub-'));
    expect(firstCharges.map((t) => t.status)).toEqual(['success', 'success']);
    expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([[late, AMOUNT]]);
    expect(await paymentOf(late)).toMatchObject({ status: 'SUCCEEDED' });
    const subscriptions = (await api('GET', `/subscriptions?customer_id=${customerId}`)).body as unknown as unknown[];
    expect(subscriptions).toHaveLength(2); // the checkout's and the retry's
  }, 180_000);

  it('a renewal charge in flight when the subscription is cancelled now is refunded in full once it succeeds', async () => {
    const { email, subscriptionId } = await paidCheckout();
    const reference = await holdRenewalCharge(subscriptionId);
    const billingDb = platform.database('billing');

    // Cancelled now while the charge is in flight: its invoice is OPEN, so no refund is quoted.
    const cancelled = await api('POST', `/subscriptions/${subscriptionId}/cancel`, {});
    expect([cancelled.status, cancelled.body.status ?? cancelled.body]).toEqual([200, 'CANCELLED']);

    // Billing times out; settlement resends the same charge, which succeeds; none of it is kept.
    await waitUntil(
      'the charge to be refunded',
      async () =>
        (await sandbox.ledger({ email })).refunds.some(
          (r) => r.transaction_reference === reference && r.status === 'processed',
        ),
      90_000,
    );
    expect(await proxy.forwardedLate[0]).toBe(200);
    const ledger = await sandbox.ledger({ email });
    expect(ledger.transactions.filter((t) => t.reference === reference).map((t) => t.status)).toEqual(['success']);
    expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([[reference, AMOUNT]]);
    const [invoice] = await queryDatabase<{ id: string; status: string; amount_paid: string; amount_refunded: string }>(
      billingDb,
      `SELECT i.id, i.status, i.amount_paid, i.amount_refunded FROM invoices i JOIN payments p ON p.invoice_id = i.id
        WHERE p.reference = $1`,
      [reference],
    );
    expect(invoice).toEqual({
      id: expect.any(String),
      status: 'PAID',
      amount_paid: String(AMOUNT),
      amount_refunded: String(AMOUNT),
    });
    // Every refund has its credit note (docs/api-behaviour.md §23): this one's, ORDER_CHANGE to the card.
    const [refund] = await queryDatabase<{ id: string }>(
      billingDb,
      `SELECT id FROM refunds WHERE transaction_reference = $1`,
      [reference],
    );
    const notes = await api('GET', `/credit-notes?invoice_id=${invoice.id}`);
    expect(notes.body).toEqual([
      expect.objectContaining({
        amount: AMOUNT / 100,
        reason: 'ORDER_CHANGE',
        refund_to: 'CARD',
        refund_id: refund.id,
      }),
    ]);
    expect((await api('GET', `/invoices/${invoice.id}`)).body).toMatchObject({ amount_credited: AMOUNT / 100 });
  }, 180_000);
});
