/** The exactly-once renewal scenarios, one test file each (renewal-exactly-once-*.test.ts). */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { SandboxControlsClient } from '@billing/payments';
import {
  freePort,
  payCheckoutPageInSandbox,
  PLATFORM_PROCESSES,
  PlatformProcess,
  probeReady,
  queryDatabase,
  startPlatform,
  type PlatformUnderTest,
} from '@billing/testing';
import { formatInvoiceNumber } from '../../src/domain/invoice-number';

const AMOUNT = 2500;

/**
 * The provider's latencies the scenarios run at: the sandbox's own (about a millisecond), and a
 * real provider's 500 ms (SANDBOX_LATENCY_MS), where a kill lands with charges sent and not yet
 * answered. Fewer subscriptions and calls in flight there keep the file's time sane: 270 at 16
 * in flight are killed a third into the batch, with charges sent and unanswered, and settlement
 * verifies what is left PENDING 16 at a time. Without latency,
 * 400 due subscriptions in batches of 100 give both replicas batches to contend for and the kill
 * a batch to land in; more subscriptions only take longer to prove the same.
 */
export const SCENARIOS = {
  noLatency: { latencyMs: 0, subscriptions: 400, customers: 2, callsInFlight: 128, batchSize: 100 },
  providerLatency: { latencyMs: 500, subscriptions: 270, customers: 2, callsInFlight: 16, batchSize: 500 },
};

export type RenewalScenario = (typeof SCENARIOS)[keyof typeof SCENARIOS];

/**
 * Renewals are exactly once with several billing replicas and across a SIGKILL: N due
 * subscriptions (seeded in billing's database on real sandbox card authorizations) are renewed
 * by two billing processes at once, then another N by one process killed mid-batch and
 * restarted. Each time: one invoice per subscription and period, one successful sandbox charge
 * each (the provider's own ledger), nothing left PENDING.
 */
export function describeRenewalsExactlyOnce({
  latencyMs,
  subscriptions: N,
  customers: CUSTOMERS,
  callsInFlight,
  batchSize,
}: RenewalScenario): void {
  describe(`renewals exactly once at ${latencyMs} ms provider latency: two replicas, SIGKILL mid-batch`, () => {
    let platform: PlatformUnderTest;
    let second: PlatformProcess;
    let sandbox: SandboxControlsClient;
    let projectId: string;
    let testKey: string;
    let planId: string;

    const billingDb = () => platform.database('billing');
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${platform.gatewayUrl}/api/v1${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(testKey ? { 'x-api-key': testKey } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: res.status,
        body: (await res.json()) as Record<string, unknown> & { api_keys?: { key: string }[] },
      };
    };

    /** A customer with a real saved sandbox card: a hosted checkout paid as a payer does. */
    async function customerWithCard(email: string): Promise<string> {
      const session = (await api('POST', '/checkout/sessions', { plan_id: planId })).body as { code: string };
      await payCheckoutPageInSandbox(platform.gatewayUrl, session.code, email);
      const completed = (await api('GET', `/checkout/sessions/${session.code}`)).body as { customer_id: string };
      expect(completed.customer_id).toBeTruthy();
      return completed.customer_id;
    }

    /** N ACTIVE monthly subscriptions over `customers`, whose period ends at `end`. */
    async function seed(label: string, customers: string[], end: Date): Promise<void> {
      const start = new Date(end.getTime() - 30 * 24 * 3600 * 1000);
      await queryDatabase(
        billingDb(),
        `INSERT INTO subscriptions (id, project_id, livemode, customer_id, plan_id, plan_name, amount, currency, interval,
         interval_count, status, billing_anchor, current_period_start, current_period_end, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), $1, false, ($2::uuid[])[1 + (g % $3)], $4, $5, $6, 'NGN', 'monthly',
         1, 'ACTIVE', $7, $7, $8, jsonb_build_object('batch', $5::text), $7, $7
       FROM generate_series(1, $9) g`,
        [projectId, customers, customers.length, planId, label, AMOUNT, start, end, N],
      );
    }

    async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    const renewed = async (label: string) =>
      Number(
        (
          await queryDatabase<{ n: string }>(
            billingDb(),
            `SELECT count(*) AS n FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
            WHERE s.plan_name = $1 AND i.status = 'PAID'`,
            [label],
          )
        )[0].n,
      );

    /** The provider's own record of the successful card charges of these customers. */
    const providerCharges = async (emails: string[]) =>
      (await Promise.all(emails.map((email) => sandbox.ledger({ email }))))
        .flatMap((l) => l.transactions)
        .filter((t) => t.channel === 'authorization' && t.status === 'success');

    async function assertExactlyOnce(label: string, emails: string[]): Promise<void> {
      const perSubscription = await queryDatabase<{ invoices: string; paid: string; period_ok: boolean }>(
        billingDb(),
        `SELECT count(i.id) AS invoices, count(i.id) FILTER (WHERE i.status = 'PAID') AS paid,
              bool_and(i.period_start = s.current_period_start) AS period_ok
         FROM subscriptions s LEFT JOIN invoices i ON i.subscription_id = s.id
        WHERE s.plan_name = $1 GROUP BY s.id`,
        [label],
      );
      expect(perSubscription).toHaveLength(N);
      expect(perSubscription.filter((r) => r.invoices !== '1' || r.paid !== '1' || !r.period_ok)).toEqual([]);
      const payments = await queryDatabase<{ status: string; n: string }>(
        billingDb(),
        `SELECT p.status, count(*) AS n FROM payments p JOIN invoices i ON i.id = p.invoice_id
         JOIN subscriptions s ON s.id = i.subscription_id WHERE s.plan_name = $1 GROUP BY p.status`,
        [label],
      );
      expect(payments.filter((p) => p.status !== 'FAILED')).toEqual([{ status: 'SUCCEEDED', n: String(N) }]);
      // The provider's own record: one successful charge per subscription, never two.
      const successes = await providerCharges(emails);
      expect(successes).toHaveLength(N);
      expect(new Set(successes.map((t) => t.reference)).size).toBe(N);
      expect(new Set(successes.map((t) => (t.metadata as { invoice_id: string }).invoice_id)).size).toBe(N);
      expect(successes.every((t) => t.amount === AMOUNT)).toBe(true);
    }

    beforeAll(async () => {
      // Test-mode subscriptions stand in for live ones here, on live mode's scheduler budget.
      platform = await startPlatform({
        // What the suite reaches; the others' start would only cost CPU.
        only: ['identity', 'sandbox-provider', 'billing', 'catalog', 'gateway'],
        env: {
          RENEWAL_POLL_MS: '100',
          PAYMENT_SETTLE_AFTER_MS: '3000',
          TEST_MODE_SCHEDULER_BATCH_SIZE: String(batchSize),
          TEST_MODE_SCHEDULER_CONCURRENCY: String(callsInFlight),
          SANDBOX_LATENCY_MS: String(latencyMs),
          PROVIDER_LATENCY_MS: String(latencyMs),
        },
      });
      sandbox = new SandboxControlsClient({
        baseUrl: platform.env.SANDBOX_PROVIDER_URL,
        secretKey: platform.env.SANDBOX_SECRET_KEY,
      });
      const registered = await api('POST', '/auth/register', {
        email: `once-${randomUUID().slice(0, 8)}@example.com`,
        business_name: 'Once Ltd',
        password: 'password-123',
      });
      testKey = registered.body.api_keys![0].key;
      projectId = (
        await queryDatabase<{ project_id: string }>(
          platform.database('identity'),
          `SELECT project_id FROM api_keys WHERE key_prefix = 'svc_test_' LIMIT 1`,
        )
      )[0].project_id;
      planId = (await api('POST', '/plans', { name: 'Seed plan', amount: AMOUNT / 100 })).body.id as string;

      const spec = PLATFORM_PROCESSES.find((p) => p.name === 'billing')!;
      const port = await freePort();
      second = new PlatformProcess(
        'billing',
        resolve(__dirname, '../../dist/main.js'),
        { ...platform.env, ...platform.tlsFiles('billing'), BILLING_GRPC_PORT: String(port) },
        () => probeReady(spec, port),
      );
    }, 120_000);
    afterAll(async () => {
      await second?.stop();
      await platform?.stop();
    });

    it(`two billing processes renew ${N} due subscriptions: ${N} invoices, ${N} charges`, async () => {
      const emails = Array.from({ length: CUSTOMERS }, (_, k) => `two-${k}-${randomUUID().slice(0, 6)}@example.com`);
      const customers = [];
      for (const email of emails) customers.push(await customerWithCard(email));
      await second.start();
      // Due in 3 s: both processes are polling by then.
      await seed('two-replicas', customers, new Date(Date.now() + 3000));
      await waitUntil(`${N} renewals`, async () => (await renewed('two-replicas')) >= N);
      await new Promise((r) => setTimeout(r, 1000));
      await assertExactlyOnce('two-replicas', emails);
    }, 180_000);

    it('a billing process killed mid-batch and restarted: every subscription renewed and charged once', async () => {
      await second.stop();
      const emails = Array.from({ length: CUSTOMERS }, (_, k) => `kill-${k}-${randomUUID().slice(0, 6)}@example.com`);
      const customers = [];
      for (const email of emails) customers.push(await customerWithCard(email));
      const billing = platform.processes.billing;
      await seed('sigkill', customers, new Date(Date.now() - 1000));
      // Mid-batch: some renewals charged, others with their charge in flight (PENDING) right now.
      const pendingCharges = async () =>
        Number(
          (
            await queryDatabase<{ n: string }>(
              billingDb(),
              `SELECT count(*) AS n FROM payments WHERE status = 'PENDING' AND invoice_id IS NOT NULL`,
            )
          )[0].n,
        );
      // At 500 ms, a third into the batch by the provider's own count of charges taken: billing's
      // PAID count lags it (successes are recorded 250 at a time, or singly by their webhooks), so
      // a trigger on it could see the batch only at its very end, and a loaded machine's poll
      // missed that last second. Settlement verifies what the kill leaves PENDING with the pass's
      // calls in flight (billing-scheduler.ts), a few seconds of work.
      const chargesInFlight =
        latencyMs > 0
          ? async () => (await providerCharges(emails)).length >= Math.floor(N / 3) && (await pendingCharges()) > 0
          : async () => (await renewed('sigkill')) >= 1 && (await pendingCharges()) > 0;
      const pendingReferences = async () =>
        (
          await queryDatabase<{ reference: string }>(
            billingDb(),
            `SELECT reference FROM payments WHERE status = 'PENDING' AND invoice_id IS NOT NULL`,
          )
        ).map((p) => p.reference);
      // Frozen first, then read, then killed: at 0 ms a charge in flight is answered within
      // milliseconds, so a kill after a mere look could land when it was answered already. A
      // frozen process changes nothing, so what is PENDING then is what the kill leaves.
      let pendingAtKill: string[] = [];
      while (pendingAtKill.length === 0) {
        await waitUntil('charges in flight', chargesInFlight);
        billing.signal('SIGSTOP');
        pendingAtKill = await pendingReferences();
        if (pendingAtKill.length === 0) billing.signal('SIGCONT');
      }
      await billing.stop('SIGKILL');
      const before = await renewed('sigkill');
      expect(before).toBeLessThan(N);
      // The dead process left charges whose outcome billing does not know: settlement's work.
      expect(pendingAtKill.length).toBeGreaterThan(0);
      await billing.start();
      await waitUntil('every renewal after the restart', async () => (await renewed('sigkill')) >= N);
      // Settlement of the charges the dead process left PENDING.
      await waitUntil(
        'no PENDING payment',
        async () =>
          (
            await queryDatabase<{ n: string }>(
              billingDb(),
              `SELECT count(*) AS n FROM payments WHERE status = 'PENDING'`,
            )
          )[0].n === '0',
      );
      await assertExactlyOnce('sigkill', emails);
      if (latencyMs > 0) {
        // The kill landed with charges in flight: the provider made some of the charges billing
        // still had PENDING when it died (answered too late for it, or answered but not yet
        // recorded), and only settlement recorded them. Not filtered by the ledger's time: the
        // sandbox stamps a charge when it takes it, which on a loaded machine can be before the
        // test reads its clock for the kill.
        const charged = new Set((await providerCharges(emails)).map((t) => t.reference));
        expect(pendingAtKill.filter((reference) => charged.has(reference)).length).toBeGreaterThan(0);
      }
    }, 180_000);

    it('invoice numbers run without a gap or a repeat through both replicas and the kill', async () => {
      // The project's counter moves in the transaction that creates the invoice, so a batch a
      // replica lost (or a process died in) gave its numbers back with its rows.
      const numbers = (
        await queryDatabase<{ number: string }>(
          billingDb(),
          `SELECT number FROM invoices WHERE project_id = $1 AND livemode = false ORDER BY number`,
          [projectId],
        )
      ).map((row) => row.number);
      expect(numbers.length).toBeGreaterThanOrEqual(N);
      expect(numbers).toEqual(numbers.map((_, k) => formatInvoiceNumber(k + 1)));
    });
  });
}
