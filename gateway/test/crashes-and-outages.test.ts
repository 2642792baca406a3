/**
 * @lane timing-critical SIGKILLs billing after the provider took a refund
 */
import { randomUUID } from 'node:crypto';
import { SandboxControlsClient } from '@billing/payments';
import {
  PLATFORM_PROCESSES,
  PlatformProcess,
  probeReady,
  queryDatabase,
  startPlatform,
  waitForLoopPasses,
  type PlatformUnderTest,
} from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  UUID,
  type Api,
  type ApiResponse,
  type Json,
  type RegisteredMerchant,
  merchantCalls,
} from './support/api';
import { waitFor } from './support/wait';
import { payHostedCheckout } from './support/hosted-checkout';

/**
 * Money across a crash or an outage of one process, each process real and stopped or killed for
 * real (or, for a coupon's give-back, its database made to refuse): the suites of refunds
 * (cancellation-refunds.test.ts), credit notes (credit-notes.test.ts) and coupons
 * (coupons.test.ts) borrow the shared platform, whose processes and schemas nobody may touch, so
 * their outage cases live here.
 */

/** A refund as the crash cases read it from billing's database. */
type RefundRow = {
  id: string;
  status: string;
  attempts: number;
  provider_refund_id: string | null;
  amount: string;
};

/**
 * A refund survives a crash between the provider's acceptance and billing's record, and is
 * never sent twice (docs/payment-recovery.md): billing is run with the test-only fault
 * injection BILLING_TEST_CRASH_AFTER_REFUND_SENT, which SIGKILLs it right after the sandbox
 * accepted a cancellation refund (or a credit note's refund to the card). The restarted billing
 * finds the refund PROCESSING, reads the provider's refunds of the transaction, finds its own (by
 * merchant_note) and records it.
 */
describe('money across crashes and outages: refunds, cancels, credit notes and coupon redemptions', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;
  let sandbox: SandboxControlsClient;

  beforeAll(async () => {
    // The sweep takes a PROCESSING refund after 2 s without an answer (the default is 30 s), and
    // retries a refund the provider could not take as soon.
    platform = await startPlatform({
      // What the suite reaches; the others' start would only cost CPU.
      only: ['identity', 'sandbox-provider', 'policy', 'billing', 'catalog', 'gateway'],
      env: { PAYMENT_SETTLE_AFTER_MS: '2000', RENEWAL_POLL_MS: '200' },
    });
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'crash');
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const { post, get } = merchantCalls(() => api);

  async function created(m: RegisteredMerchant, path: string, body: Json): Promise<string> {
    const res = await api('POST', `/api/v1${path}`, { apiKey: m.testKey, token: m.token, body });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body.id;
  }

  it('cancels nothing while policy is unreachable (503); a refund the provider could not take is retried', async () => {
    const m = await registerMerchant(api, 'outage');
    await created(m, '/cancellation-policies', { name: 'Policy', refund_type: 'FULL', is_default: true });
    const planId = await created(m, '/plans', { name: 'Plan', amount: 60 });
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, 'outage');
    const amountRefunded = async () =>
      (await get(m, `/invoices?subscription_id=${paid.subscriptionId}`)).body[0].amount_refunded;

    await platform.processes.policy.stop();
    try {
      const unavailable = await post(m, `/subscriptions/${paid.subscriptionId}/cancel`);
      expect(unavailable.status).toBe(503);
      expect(unavailable.body).toEqual({ detail: expect.any(String) });
      expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body.status).toBe('ACTIVE');
    } finally {
      await platform.processes.policy.start();
    }
    // Billing's channel reconnects on its own backoff.
    await waitFor(
      'policy to answer billing again',
      () => post(m, `/subscriptions/${paid.subscriptionId}/cancel/preview`),
      (res) => res.status === 200,
    );

    await platform.processes['sandbox-provider'].stop();
    let refund: Json;
    try {
      // Cancelled with its refund decided; the provider is down, so it waits (PENDING).
      const cancelled = await post(m, `/subscriptions/${paid.subscriptionId}/cancel`);
      expect([cancelled.status, cancelled.body.status]).toEqual([200, 'CANCELLED']);
      refund = cancelled.body.refund;
      expect(refund).toMatchObject({ amount: 60, status: 'PENDING', id: expect.stringMatching(UUID) });
      expect(await amountRefunded()).toBe(0);
    } finally {
      await platform.processes['sandbox-provider'].start();
    }
    // Retried by billing's polling loop once the provider is back.
    await waitFor('the refund to be retried', amountRefunded, (amount) => amount === 60);
    expect((await sandbox.ledger({ email: paid.email })).refunds.map((r) => r.amount)).toEqual([6000]);
    const events = await queryDatabase<{ payload: Json }>(
      platform.database('billing'),
      `SELECT payload FROM outbox_events WHERE event_type = 'refund.processed' AND payload->'data'->>'subscription_id' = $1`,
      [paid.subscriptionId],
    );
    expect(events.map((e) => e.payload.data)).toEqual([
      { ...refund, status: 'PROCESSED', subscription_id: paid.subscriptionId },
    ]);
  });

  it('logs a coupon redemption catalog could not give back (its database refused the give-back): the 402 still answers', async () => {
    const m = await registerMerchant(api, 'giveback-log');
    const planId = await created(m, '/plans', { name: 'Monthly', amount: 10000 });
    const couponId = await created(m, '/coupons', {
      code: 'STUCK',
      percent_off: 50,
      duration: 'ONCE',
      max_redemptions: 1,
    });
    const timesRedeemed = async () => (await get(m, `/coupons/${couponId}`)).body.times_redeemed;
    // A saved card from a checkout whose trial outlasts the test: nothing of it is charged.
    const cardPlan = await created(m, '/plans', { name: 'Card check', amount: 1, trial_period_days: 730 });
    const { customerId } = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, cardPlan, 'giveback-log');
    expect((await post(m, `/test-helpers/customers/${customerId}/card`, { behavior: 'decline' })).status).toBe(200);
    const idempotencyKey = `k-${randomUUID()}`;
    const requestId = `giveback-${randomUUID()}`;

    // Catalog redeems, then gives back after billing's decline, in its own workflow: stopping it
    // would leave nobody to answer. What can fail there is the give-back itself: catalog's
    // database refuses it (a trigger on this coupon's redemptions becoming RELEASED), while the
    // redemption and billing's decline go through.
    const catalogDatabase = platform.database('catalog');
    await queryDatabase(
      catalogDatabase,
      `CREATE FUNCTION refuse_giveback() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'the give-back is refused by the test'; END $$`,
    );
    await queryDatabase(
      catalogDatabase,
      `CREATE TRIGGER refuse_giveback BEFORE UPDATE ON coupon_redemptions FOR EACH ROW
       WHEN (NEW.status = 'RELEASED' AND NEW.coupon_id = '${couponId}') EXECUTE FUNCTION refuse_giveback()`,
    );
    let declined;
    try {
      declined = await post(
        m,
        '/subscriptions',
        { customer_id: customerId, plan_id: planId, coupon_code: 'STUCK' },
        { 'Idempotency-Key': idempotencyKey, 'X-Request-Id': requestId },
      );
    } finally {
      await queryDatabase(catalogDatabase, 'DROP TRIGGER refuse_giveback ON coupon_redemptions');
      await queryDatabase(catalogDatabase, 'DROP FUNCTION refuse_giveback()');
    }
    expect([declined.status, declined.body]).toEqual([402, { detail: 'Declined' }]);
    expect(declined.headers.get('x-request-id')).toBe(requestId);
    // Catalog's log reaches this process through a pipe: give the line a moment to arrive.
    const loggedLines = await waitFor(
      'the log line',
      async () =>
        platform.processes.catalog.output
          .split('\n')
          .filter((line) => line.includes('coupon redemption not given back') && line.includes(idempotencyKey)),
      (lines) => lines.length > 0,
      5_000,
    );
    expect(loggedLines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 'error',
        workflow: 'subscribe-with-coupon',
        step: 'redeem coupon',
        coupon_code: 'STUCK',
        project_id: m.projectId,
        redemption_key: expect.stringContaining(idempotencyKey),
        request_id: requestId,
      }),
    ]);
    // What the line warns of: the give-back never happened, so the redemption stays counted.
    expect(await timesRedeemed()).toBe(1);
  });

  /**
   * Sends `request` to a billing that SIGKILLs itself right after the provider accepted a refund
   * (BILLING_TEST_CRASH_AFTER_REFUND_SENT): the answer is a 5xx, the provider holds one refund and
   * billing's record (`refundRows`, one row) says PROCESSING. Then the real billing again: its
   * sweep asks the provider before resending (attempt 2), finds the refund, records it, and two
   * more passes send nothing. Returns the recorded row; `reach` is any GET billing answers.
   */
  async function refundAcrossBillingCrash(
    email: string,
    reach: () => Promise<ApiResponse>,
    request: () => Promise<ApiResponse>,
    refundRows: () => Promise<RefundRow[]>,
  ): Promise<RefundRow> {
    const billing = platform.processes.billing;
    await billing.stop();
    const spec = PLATFORM_PROCESSES.find((p) => p.name === 'billing')!;
    const faulty = new PlatformProcess(
      'billing',
      billing.entry,
      { ...billing.env, BILLING_TEST_CRASH_AFTER_REFUND_SENT: 'true' },
      () => probeReady(spec, Number(platform.env.BILLING_GRPC_PORT)),
    );
    await faulty.start();
    // The gateway's channel to the new billing reconnects on its own backoff.
    await waitFor('the gateway to reach the new billing', reach, (res) => res.status === 200);
    // Billing died mid-request: the gateway cannot know the outcome.
    expect((await request()).status).toBeGreaterThanOrEqual(500);
    const alive = async () => {
      try {
        process.kill(faulty.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor('billing to be dead', alive, (isAlive) => !isAlive);

    // The provider took the refund; billing's record says it is still in flight.
    const ledger = await sandbox.ledger({ email });
    expect(ledger.refunds).toHaveLength(1);
    expect(await refundRows()).toMatchObject([{ status: 'PROCESSING', attempts: 1, provider_refund_id: null }]);

    await billing.start();
    const [settled] = await waitFor('the refund to be recorded', refundRows, (rows) => rows[0]?.status === 'PROCESSED');
    expect(settled.provider_refund_id).toBe(String(ledger.refunds[0].id));
    expect(settled.attempts).toBe(2);
    // Two more passes of the refund sweep: nothing is sent again.
    await waitForLoopPasses(platform, 'billing', 'refund-retry', 2);
    const after = await sandbox.ledger({ email });
    expect(after.refunds).toEqual([expect.objectContaining({ amount: Number(settled.amount), status: 'processed' })]);
    // The gateway's channel to the restarted billing reconnects on its own backoff.
    await waitFor('billing to answer the gateway again', reach, (res) => res.status !== 503);
    return settled;
  }

  // The last two: the processes' channels to the restarted billing reconnect on their own backoff.
  it('SIGKILL after the provider took the refund, restart: exactly one refund, recorded once', async () => {
    const { testKey } = merchant;
    const plan = await api('POST', '/api/v1/plans', { apiKey: testKey, body: { name: 'Crash plan', amount: 500 } });
    const policy = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: testKey,
      token: merchant.token,
      body: { name: 'Full', refund_type: 'FULL', is_default: true },
    });
    expect(policy.status).toBe(201);
    const paid = await payHostedCheckout(api, platform.gatewayUrl, testKey, plan.body.id, 'crash');
    const subscription = () => api('GET', `/api/v1/subscriptions/${paid.subscriptionId}`, { apiKey: testKey });
    const billingDb = platform.database('billing');

    const settled = await refundAcrossBillingCrash(
      paid.email,
      subscription,
      () => api('POST', `/api/v1/subscriptions/${paid.subscriptionId}/cancel`, { apiKey: testKey, body: {} }),
      () =>
        queryDatabase<RefundRow>(
          billingDb,
          `SELECT id, status, attempts, provider_refund_id, amount FROM refunds WHERE subscription_id = $1`,
          [paid.subscriptionId],
        ),
    );
    expect(settled.amount).toBe('50000');
    const cancelled = await subscription();
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'CANCELLED']);
    const [paidInvoice] = await queryDatabase<{ amount_refunded: string }>(
      billingDb,
      `SELECT amount_refunded FROM invoices WHERE subscription_id = $1`,
      [paid.subscriptionId],
    );
    expect(paidInvoice.amount_refunded).toBe('50000');
  }, 120_000);

  it('a credit note to the card across a SIGKILL of billing between the provider and the record: one refund, the note and the invoice whole', async () => {
    const { testKey } = merchant;
    const plan = await api('POST', '/api/v1/plans', { apiKey: testKey, body: { name: 'Note plan', amount: 80 } });
    const paid = await payHostedCheckout(api, platform.gatewayUrl, testKey, plan.body.id, 'note-crash');
    const [invoice] = (await api('GET', `/api/v1/invoices?subscription_id=${paid.subscriptionId}`, { apiKey: testKey }))
      .body;
    const invoiceNow = () => api('GET', `/api/v1/invoices/${invoice.id}`, { apiKey: testKey });

    const settled = await refundAcrossBillingCrash(
      paid.email,
      invoiceNow,
      () =>
        api('POST', `/api/v1/invoices/${invoice.id}/credit-notes`, {
          apiKey: testKey,
          body: { amount: 30, reason: 'PRODUCT_UNSATISFACTORY', refund_to: 'CARD' },
        }),
      () =>
        queryDatabase<RefundRow>(
          platform.database('billing'),
          `SELECT id, status, attempts, provider_refund_id, amount FROM refunds WHERE invoice_id = $1 AND reason = 'CREDIT_NOTE'`,
          [invoice.id],
        ),
    );
    expect(settled.amount).toBe('3000');
    // The note was committed before the refund was sent: it is there, with that refund.
    const notes = (await api('GET', `/api/v1/credit-notes?invoice_id=${invoice.id}`, { apiKey: testKey })).body;
    expect(notes).toEqual([
      expect.objectContaining({
        number: `${invoice.number}-CN1`,
        amount: 30,
        refund_to: 'CARD',
        refund_id: settled.id,
      }),
    ]);
    expect((await invoiceNow()).body).toMatchObject({ amount_refunded: 30, amount_credited: 30 });
  }, 120_000);
});
