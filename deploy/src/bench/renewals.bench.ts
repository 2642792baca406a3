/**
 * Benchmark "renewals": how fast the billing scheduler renews due subscriptions end to end
 * (claim FOR UPDATE SKIP LOCKED -> period invoice with its line and invoice.created -> payments
 * ledger row -> charge of the saved card at the sandbox provider over HTTP -> PAID, invoice.paid,
 * subscription.renewed), compared with a baseline of plain SQL inserts of the rows a renewal
 * writes (invoice, line, payment, two outbox events) in the same run and database server.
 * Run with `npm run bench -- renewals`.
 *
 * Environment: BENCH_RENEWALS [20000], BENCH_BILLING_REPLICAS [1] (billing processes renewing),
 * BENCH_CUSTOMERS [20] (saved sandbox cards the subscriptions are spread over),
 * BENCH_PROVIDER_LATENCY_MS [0] (the sandbox answers each call after that long, give or take 10%,
 * as a real provider does: SANDBOX_LATENCY_MS), BENCH_CHARGES_IN_FLIGHT [128] (the scheduler's
 * provider calls in flight, and the sandbox-alone run's).
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';
import {
  freePort,
  PLATFORM_PROCESSES,
  PlatformProcess,
  probeReady,
  startPlatform,
  TEST_DATABASE_URL,
  type PlatformUnderTest,
} from '@billing/testing';
import { round, table } from './measure';

const RENEWALS = Number(process.env.BENCH_RENEWALS || 20_000);
const REPLICAS = Number(process.env.BENCH_BILLING_REPLICAS || 1);
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS || 20);
const LATENCY_MS = Number(process.env.BENCH_PROVIDER_LATENCY_MS || 0);
const IN_FLIGHT = Number(process.env.BENCH_CHARGES_IN_FLIGHT || 128);
const AMOUNT = 5000;

async function connect(platform: PlatformUnderTest): Promise<Client> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${platform.database('billing')}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A merchant, a plan and customers with real saved sandbox cards (hosted checkouts paid). */
async function prepare(platform: PlatformUnderTest) {
  const base = `${platform.gatewayUrl}/api/v1`;
  const registered = await json(
    await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `bench-${platform.runId}@example.com`,
        business_name: 'Bench Ltd',
        password: 'bench-password-123',
      }),
    }),
  );
  const apiKey = (registered.api_keys as { key: string; is_live: boolean }[]).find((k) => !k.is_live)!.key;
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const plan = await json(
    await fetch(`${base}/plans`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Bench plan', amount: AMOUNT / 100 }),
    }),
  );
  const customers: string[] = [];
  let projectId = '';
  for (let k = 0; k < CUSTOMERS; k += 1) {
    const session = await json(
      await fetch(`${base}/checkout/sessions`, { method: 'POST', headers, body: JSON.stringify({ plan_id: plan.id }) }),
    );
    const pay = await fetch(`${platform.gatewayUrl}/checkout/${String(session.code)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: `bench-${k}-${randomUUID().slice(0, 6)}@example.com` }),
      redirect: 'manual',
    });
    const outcome = await fetch(pay.headers.get('location')!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ outcome: 'success' }),
      redirect: 'manual',
    });
    await fetch(outcome.headers.get('location')!, { redirect: 'manual' });
    const done = await json(await fetch(`${base}/checkout/sessions/${String(session.code)}`, { headers }));
    customers.push(String(done.customer_id));
  }
  const db = await connect(platform);
  try {
    projectId = (await db.query<{ project_id: string }>('SELECT project_id FROM customers LIMIT 1')).rows[0].project_id;
  } finally {
    await db.end();
  }
  return { projectId, planId: String(plan.id), customers };
}

/** Seeds the due subscriptions in one statement; returns when they are committed (= due). */
async function seed(db: Client, projectId: string, planId: string, customers: string[]): Promise<void> {
  const end = new Date(Date.now() - 1000);
  const start = new Date(end.getTime() - 30 * 24 * 3600 * 1000);
  await db.query(
    `INSERT INTO subscriptions (id, project_id, livemode, customer_id, plan_id, plan_name, amount, currency, interval,
       interval_count, status, billing_anchor, current_period_start, current_period_end, metadata, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, ($2::uuid[])[1 + (g % $3)], $4, 'Bench plan', $5, 'NGN', 'monthly',
       1, 'ACTIVE', $6, $6, $7, '{}'::jsonb, $6, $6
     FROM generate_series(1, $8) g`,
    [projectId, customers, customers.length, planId, AMOUNT, start, end, RENEWALS],
  );
}

/** The baseline: the same rows a renewal writes, as plain multi-row INSERTs in batches of 500. */
async function baseline(db: Client, projectId: string): Promise<number> {
  await db.query(`CREATE TEMP TABLE b_invoices (LIKE invoices INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_lines (LIKE invoice_lines INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_payments (LIKE payments INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_outbox (LIKE outbox_events INCLUDING DEFAULTS)`);
  const started = process.hrtime.bigint();
  const BATCH = 500;
  for (let offset = 0; offset < RENEWALS; offset += BATCH) {
    const n = Math.min(BATCH, RENEWALS - offset);
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO b_invoices (id, project_id, livemode, number, subscription_id, customer_id, status, currency, subtotal,
         amount, amount_due, amount_paid, period_start, period_end, due_date, paid_at, attempt_count, created_at,
         updated_at)
       SELECT ('00000000-0000-4000-8000-' || lpad((g + $2)::text, 12, '0'))::uuid, $1, false, 'INV-' || (g + $2),
         gen_random_uuid(), gen_random_uuid(), 'PAID', 'NGN', $3, $3, $3, $3, now(), now(), now(), now(), 1, now(),
         now()
       FROM generate_series(1, $4) g`,
      [projectId, offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_lines (id, invoice_id, position, type, description, quantity, unit_amount, amount, period_start, period_end)
       SELECT gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad((g + $1)::text, 12, '0'))::uuid, 0, 'SUBSCRIPTION',
         'Bench plan', 1, $2, $2, now(), now()
       FROM generate_series(1, $3) g`,
      [offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_payments (id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
         status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, false, 'inv-' || (g + $2), 'INVOICE', gen_random_uuid(),
         ('00000000-0000-4000-8000-' || lpad((g + $2)::text, 12, '0'))::uuid, $3, 'NGN', 'SUCCEEDED', now(), now()
       FROM generate_series(1, $4) g`,
      [projectId, offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_outbox (id, event_type, payload) SELECT gen_random_uuid(), 'invoice.paid', '{"bench": true}'::jsonb
       FROM generate_series(1, $1 * 3) g`,
      [n],
    );
    await db.query('COMMIT');
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function count(db: Client, sql: string): Promise<number> {
  return Number((await db.query<{ n: string }>(sql)).rows[0].n);
}

async function main(): Promise<number> {
  process.stdout.write(
    `renewals benchmark: ${RENEWALS} due subscriptions, ${REPLICAS} billing process(es), ${CUSTOMERS} saved cards, ` +
      `provider latency ${LATENCY_MS} ms, ${IN_FLIGHT} charges in flight\n`,
  );
  // The subscriptions are test-mode ones (live mode would need Paystack), standing in for live
  // renewals: test mode gets live mode's budget here, so the figure is the live scheduler's.
  const platform = await startPlatform({
    env: {
      RENEWAL_POLL_MS: '100',
      LOG_LEVEL: 'warn',
      // A claimed batch keeps every call in flight busy while the next one is claimed.
      TEST_MODE_SCHEDULER_BATCH_SIZE: String(Math.max(500, 2 * IN_FLIGHT)),
      TEST_MODE_SCHEDULER_CONCURRENCY: String(IN_FLIGHT),
      PROVIDER_CALLS_IN_FLIGHT: String(IN_FLIGHT),
      SANDBOX_LATENCY_MS: String(LATENCY_MS),
    },
  });
  const extra: PlatformProcess[] = [];
  try {
    const { projectId, planId, customers } = await prepare(platform);
    const spec = PLATFORM_PROCESSES.find((p) => p.name === 'billing')!;
    for (let r = 1; r < REPLICAS; r += 1) {
      const port = await freePort();
      const replica = new PlatformProcess(
        'billing',
        resolve(__dirname, '../../../services/billing/dist/main.js'),
        { ...platform.env, ...platform.tlsFiles('billing'), BILLING_GRPC_PORT: String(port) },
        () => probeReady(spec, port),
      );
      await replica.start();
      extra.push(replica);
    }
    const db = await connect(platform);
    try {
      const paidBefore = await count(db, `SELECT count(*) AS n FROM invoices WHERE status = 'PAID'`);
      const started = process.hrtime.bigint();
      await seed(db, projectId, planId, customers);
      const seeded = process.hrtime.bigint();
      let last = -1;
      for (;;) {
        const paid = (await count(db, `SELECT count(*) AS n FROM invoices WHERE status = 'PAID'`)) - paidBefore;
        if (paid >= RENEWALS) break;
        if (process.env.BENCH_TRACE && paid !== last) {
          const created = (await count(db, `SELECT count(*) AS n FROM invoices`)) - paidBefore;
          process.stdout.write(
            `${round(Number(process.hrtime.bigint() - seeded) / 1e9, 1)} s: ${created} invoices, ${paid} paid\n`,
          );
        }
        if (paid !== last) last = paid;
        await new Promise((r) => setTimeout(r, 100));
      }
      const renewSeconds = Number(process.hrtime.bigint() - seeded) / 1e9;
      const seedSeconds = Number(seeded - started) / 1e9;
      const charges = await ledgerSuccesses(platform);
      const baseSeconds = await baseline(db, projectId);
      const aloneSeconds = await sandboxAlone(platform, db);
      const renewalsPerSecond = RENEWALS / renewSeconds;
      const baselinePerSecond = RENEWALS / baseSeconds;
      process.stdout.write(
        `\n${table([
          ['what', 'rows', 'seconds', 'per second'],
          [
            'scheduler renewals (charged at the sandbox)',
            String(RENEWALS),
            round(renewSeconds, 2).toString(),
            round(renewalsPerSecond, 0).toString(),
          ],
          [
            'baseline: plain SQL inserts of the same rows',
            String(RENEWALS),
            round(baseSeconds, 2).toString(),
            round(baselinePerSecond, 0).toString(),
          ],
          [
            'sandbox provider alone: saved-card charges over HTTP',
            String(RENEWALS),
            round(aloneSeconds, 2).toString(),
            round(RENEWALS / aloneSeconds, 0).toString(),
          ],
          [
            '(seeding the due subscriptions)',
            String(RENEWALS),
            round(seedSeconds, 2).toString(),
            round(RENEWALS / seedSeconds, 0).toString(),
          ],
        ])}\nratio renewals/baseline: ${round(renewalsPerSecond / baselinePerSecond, 4)}; sandbox successful charges: ${charges}\n\n`,
      );
      process.stdout.write(
        `${JSON.stringify({
          bench: 'renewals',
          renewals: RENEWALS,
          billing_replicas: REPLICAS,
          provider_latency_ms: LATENCY_MS,
          charges_in_flight: IN_FLIGHT,
          node: process.version,
          renewals_per_s: round(renewalsPerSecond, 1),
          baseline_rows_per_s: round(baselinePerSecond, 1),
          ratio: round(renewalsPerSecond / baselinePerSecond, 4),
          sandbox_charges: charges,
          sandbox_alone_charges_per_s: round(RENEWALS / aloneSeconds, 1),
        })}\n`,
      );
      return charges >= RENEWALS ? 0 : 1;
    } finally {
      await db.end();
    }
  } finally {
    for (const replica of extra) await replica.stop();
    await platform.stop();
  }
}

/**
 * The provider alone: the same number of saved-card charges sent straight to the sandbox over
 * HTTP, as many in flight as the scheduler sends, so the report shows what the provider caps.
 */
async function sandboxAlone(platform: PlatformUnderTest, db: Client): Promise<number> {
  const cards = (
    await db.query<{ authorization_code: string; email: string }>(
      `SELECT a.authorization_code, c.email FROM payment_authorizations a JOIN customers c ON c.id = a.customer_id`,
    )
  ).rows;
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < RENEWALS) {
      const k = next++;
      const card = cards[k % cards.length];
      const res = await fetch(`${platform.env.SANDBOX_PROVIDER_URL}/transaction/charge_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.env.SANDBOX_SECRET_KEY}` },
        body: JSON.stringify({
          authorization_code: card.authorization_code,
          email: card.email,
          amount: AMOUNT,
          currency: 'NGN',
          reference: `bench-alone-${k}-${platform.runId.replace(/_/g, '-')}`,
        }),
      });
      await res.text();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Successful saved-card charges in the sandbox's own ledger. */
async function ledgerSuccesses(platform: PlatformUnderTest): Promise<number> {
  const res = await fetch(`${platform.env.SANDBOX_PROVIDER_URL}/sandbox/ledger`, {
    headers: { authorization: `Bearer ${platform.env.SANDBOX_SECRET_KEY}` },
  });
  const ledger = (await json(res)) as { transactions: { channel: string; status: string }[] };
  return ledger.transactions.filter((t) => t.channel === 'authorization' && t.status === 'success').length;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `renewals benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
