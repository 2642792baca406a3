/**
 * @lane timing-critical SIGKILLs billing after the provider took a refund
 */
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
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';
import { waitFor } from './support/wait';
import { payHostedCheckout } from './support/hosted-checkout';

/**
 * A refund survives a crash between the provider's acceptance and billing's record, and is
 * never sent twice (docs/payment-recovery.md): billing is run with the test-only fault
 * injection BILLING_TEST_CRASH_AFTER_REFUND_SENT, which SIGKILLs it right after the sandbox
 * accepted a cancellation refund. The restarted billing finds the refund PROCESSING, reads the
 * provider's refunds of the transaction, finds its own (by merchant_note) and records it.
 */
describe('refunds exactly once across a SIGKILL between the provider call and the record', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;
  let sandbox: SandboxControlsClient;

  beforeAll(async () => {
    // The sweep takes a PROCESSING refund after 2 s without an answer (the default is 30 s).
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

    // Billing again, with the fault injection on.
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
    const cancel = await api('POST', `/api/v1/subscriptions/${paid.subscriptionId}/cancel`, {
      apiKey: testKey,
      body: {},
    });
    // Billing died mid-request: the gateway cannot know the outcome.
    expect(cancel.status).toBeGreaterThanOrEqual(500);
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
    const ledger = await sandbox.ledger({ email: paid.email });
    expect(ledger.refunds).toHaveLength(1);
    const billingDb = platform.database('billing');
    const refundRows = () =>
      queryDatabase<{ status: string; attempts: number; provider_refund_id: string | null; amount: string }>(
        billingDb,
        `SELECT status, attempts, provider_refund_id, amount FROM refunds WHERE subscription_id = $1`,
        [paid.subscriptionId],
      );
    expect(await refundRows()).toMatchObject([{ status: 'PROCESSING', attempts: 1, provider_refund_id: null }]);

    await billing.start();
    const [settled] = await waitFor('the refund to be recorded', refundRows, (rows) => rows[0]?.status === 'PROCESSED');
    expect(settled.provider_refund_id).toBe(String(ledger.refunds[0].id));
    expect(settled.attempts).toBe(2);
    // Two more passes of the refund sweep: nothing is sent again.
    await waitForLoopPasses(platform, 'billing', 'refund-retry', 2);
    const after = await sandbox.ledger({ email: paid.email });
    expect(after.refunds).toHaveLength(1);
    expect(after.refunds[0]).toMatchObject({ amount: 50000, status: 'processed' });
    // The gateway's channel to the restarted billing reconnects on its own backoff.
    const subscription = await waitFor(
      'billing to answer the gateway again',
      () => api('GET', `/api/v1/subscriptions/${paid.subscriptionId}`, { apiKey: testKey }),
      (res) => res.status !== 503,
    );
    expect([subscription.status, subscription.body.status]).toEqual([200, 'CANCELLED']);
    const [paidInvoice] = await queryDatabase<{ amount_refunded: string }>(
      billingDb,
      `SELECT amount_refunded FROM invoices WHERE subscription_id = $1`,
      [paid.subscriptionId],
    );
    expect(paidInvoice.amount_refunded).toBe('50000');
  }, 120_000);
});
