/**
 * What the renewal benchmarks (renewals, billing-day) share: the platform started for renewals
 * at a provider's latency, a merchant with saved sandbox cards, due subscriptions seeded in one
 * statement, the sandbox alone taking the same charges (their baseline), and the sandbox's own
 * ledger read back.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { errors, Pool } from 'undici';
import {
  freePort,
  payCheckoutPageInSandbox,
  PLATFORM_PROCESSES,
  PlatformProcess,
  probeReady,
  startPlatform,
  TEST_DATABASE_URL,
  type PlatformUnderTest,
} from '@billing/testing';
import { registerBenchMerchant, round } from './measure';

/** Every renewal charges this much (minor units) on a monthly plan. */
export const RENEWAL_AMOUNT = 5000;

/** The settings both renewal benchmarks take from BENCH_* (docs/configuration.md). */
export interface RenewalBenchSettings {
  /** The sandbox answers each Paystack call after this long, give or take 10% (SANDBOX_LATENCY_MS). */
  latencyMs: number;
  /** The most provider calls billing keeps in flight, and its provider connections. */
  maxCallsInFlight: number;
  /** The renewal rate billing sizes its calls in flight for (PROVIDER_TARGET_CALLS_PER_SECOND). */
  targetPerSecond: number;
  /** Saved sandbox cards the subscriptions are spread over. */
  customers: number;
  /** Billing processes renewing (the platform's own and more). */
  billingReplicas: number;
}

export function renewalBenchSettings(defaultLatencyMs: number): RenewalBenchSettings {
  const setting = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  return {
    latencyMs: setting('BENCH_PROVIDER_LATENCY_MS', defaultLatencyMs),
    maxCallsInFlight: setting('BENCH_CHARGES_IN_FLIGHT', 1024),
    targetPerSecond: setting('BENCH_RENEWAL_TARGET_PER_SECOND', 1000),
    customers: setting('BENCH_CUSTOMERS', 20),
    billingReplicas: setting('BENCH_BILLING_REPLICAS', 1),
  };
}

export interface RenewalPlatform {
  platform: PlatformUnderTest;
  stop(): Promise<void>;
}

/**
 * The platform, with billing polling every 100 ms and its test-mode scheduler on live mode's
 * budget: the subscriptions are test-mode ones (live mode would need Paystack), standing in for
 * live renewals, so the figure is the live scheduler's. Billing sizes its calls in flight itself
 * (Little's law), from the target rate and the latency it measures, within maxCallsInFlight.
 */
export async function startRenewalPlatform(options: RenewalBenchSettings): Promise<RenewalPlatform> {
  const platform = await startPlatform({
    env: {
      RENEWAL_POLL_MS: '100',
      LOG_LEVEL: 'warn',
      TEST_MODE_SCHEDULER_BATCH_SIZE: '500',
      TEST_MODE_SCHEDULER_CONCURRENCY: String(options.maxCallsInFlight),
      PROVIDER_CALLS_IN_FLIGHT: String(options.maxCallsInFlight),
      PROVIDER_TARGET_CALLS_PER_SECOND: String(options.targetPerSecond),
      PROVIDER_LATENCY_MS: String(options.latencyMs),
      SANDBOX_LATENCY_MS: String(options.latencyMs),
    },
  });
  const extra: PlatformProcess[] = [];
  try {
    const spec = PLATFORM_PROCESSES.find((p) => p.name === 'billing')!;
    for (let r = 1; r < options.billingReplicas; r += 1) {
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
  } catch (err) {
    for (const replica of extra) await replica.stop();
    await platform.stop();
    throw err;
  }
  return {
    platform,
    async stop() {
      for (const replica of extra) await replica.stop();
      await platform.stop();
    },
  };
}

/** A client of one service's database in this run (billing's, the sandbox's ledger, analytics' read model). */
export async function connectDatabase(
  platform: PlatformUnderTest,
  service: 'billing' | 'sandbox-provider' | 'analytics',
): Promise<Client> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${platform.database(service)}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export interface RenewalMerchant {
  projectId: string;
  planId: string;
  /** Customers with a real saved sandbox card each. */
  customers: string[];
}

/** A merchant, a plan and `customers` customers with real saved sandbox cards (hosted checkouts paid). */
export async function prepareMerchant(platform: PlatformUnderTest, customerCount: number): Promise<RenewalMerchant> {
  const base = `${platform.gatewayUrl}/api/v1`;
  const apiKey = (await registerBenchMerchant(platform.gatewayUrl, platform.runId, 'renewals')).testKey;
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const plan = await json(
    await fetch(`${base}/plans`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Bench plan', amount: RENEWAL_AMOUNT / 100 }),
    }),
  );
  const customers: string[] = [];
  for (let k = 0; k < customerCount; k += 1) {
    const session = await json(
      await fetch(`${base}/checkout/sessions`, { method: 'POST', headers, body: JSON.stringify({ plan_id: plan.id }) }),
    );
    await payCheckoutPageInSandbox(
      platform.gatewayUrl,
      String(session.code),
      `bench-${k}-${randomUUID().slice(0, 6)}@example.com`,
    );
    const done = await json(await fetch(`${base}/checkout/sessions/${String(session.code)}`, { headers }));
    customers.push(String(done.customer_id));
  }
  const db = await connectDatabase(platform, 'billing');
  try {
    const projectId = (await db.query<{ project_id: string }>('SELECT project_id FROM customers LIMIT 1')).rows[0]
      .project_id;
    return { projectId, planId: String(plan.id), customers };
  } finally {
    await db.end();
  }
}

/**
 * Seeds `count` ACTIVE monthly subscriptions spread over the merchant's customers, all of whose
 * periods end at `periodEnd` (due from then on), in one statement.
 */
export async function seedDueSubscriptions(
  db: Client,
  merchant: RenewalMerchant,
  count: number,
  periodEnd: Date,
): Promise<void> {
  const start = new Date(periodEnd.getTime() - 30 * 24 * 3600 * 1000);
  await db.query(
    `INSERT INTO subscriptions (id, project_id, livemode, customer_id, plan_id, plan_name, amount, currency, interval,
       interval_count, status, billing_anchor, current_period_start, current_period_end, metadata, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, ($2::uuid[])[1 + (g % $3)], $4, 'Bench plan', $5, 'NGN', 'monthly',
       1, 'ACTIVE', $6, $6, $7, '{}'::jsonb, $6, $6
     FROM generate_series(1, $8) g`,
    [
      merchant.projectId,
      merchant.customers,
      merchant.customers.length,
      merchant.planId,
      RENEWAL_AMOUNT,
      start,
      periodEnd,
      count,
    ],
  );
  // Statistics as a database that has held these rows a while has them (autovacuum analyzes a
  // table grown by a tenth within its next round, a minute by default): without them the
  // scheduler would plan its claims, for the first minute, for the 20-row table it last saw.
  await db.query('ANALYZE subscriptions');
}

export async function countRows(db: Client, sql: string): Promise<number> {
  return Number((await db.query<{ n: string }>(sql)).rows[0].n);
}

/**
 * Whether renewals of the (test-mode) subscriptions whose period ended by `periodEnd` are still under way: one
 * still due (its period not moved on) or an OPEN invoice (moving the period and opening the
 * invoice are one transaction). Both read small indexes (subscriptions_due and
 * invoices_open_of_subscription), so polling this does not load the database under measurement,
 * as counting PAID invoices on every poll did (a scan of the whole table each time).
 */
export async function renewalsUnderWay(db: Client, periodEnd: Date): Promise<boolean> {
  const { rows } = await db.query<{ busy: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM subscriptions
                     WHERE status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED') AND NOT livemode
                       AND current_period_end <= $1)
         OR EXISTS (SELECT 1 FROM invoices WHERE status = 'OPEN') AS busy`,
    [periodEnd],
  );
  return rows[0].busy;
}

/** What PostgreSQL did in one database so far (pg_stat_database), to divide by the work done. */
export interface DatabaseActivity {
  commits: number;
  /** Rows read by scans (sequential and index), fetched by index, inserted, updated. */
  rowsRead: number;
  rowsFetched: number;
  rowsInserted: number;
  rowsUpdated: number;
  /** Buffer blocks touched (hit or read). */
  blocks: number;
  /** The database's size on disk (tables, indexes, TOAST): what the work leaves behind to store. */
  bytes: number;
}

/**
 * The database's counters now. Other backends publish theirs at most once a second
 * (PostgreSQL 15), so a window's figures are exact only to about a second of its work.
 */
export async function databaseActivity(db: Client): Promise<DatabaseActivity> {
  const { rows } = await db.query<Record<keyof DatabaseActivity, string>>(
    `SELECT xact_commit AS "commits", tup_returned AS "rowsRead", tup_fetched AS "rowsFetched",
            tup_inserted AS "rowsInserted", tup_updated AS "rowsUpdated", blks_hit + blks_read AS "blocks",
            pg_database_size(current_database()) AS "bytes"
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const [row] = rows;
  return {
    commits: Number(row.commits),
    rowsRead: Number(row.rowsRead),
    rowsFetched: Number(row.rowsFetched),
    rowsInserted: Number(row.rowsInserted),
    rowsUpdated: Number(row.rowsUpdated),
    blocks: Number(row.blocks),
    bytes: Number(row.bytes),
  };
}

/** The change of each counter from `before` to `after`, per unit of work. */
export function activityPer(before: DatabaseActivity, after: DatabaseActivity, units: number): DatabaseActivity {
  const per = (key: keyof DatabaseActivity) => round((after[key] - before[key]) / units);
  return {
    commits: per('commits'),
    rowsRead: per('rowsRead'),
    rowsFetched: per('rowsFetched'),
    rowsInserted: per('rowsInserted'),
    rowsUpdated: per('rowsUpdated'),
    blocks: per('blocks'),
    bytes: per('bytes'),
  };
}

/**
 * The provider alone: `count` saved-card charges sent straight to the sandbox over HTTP,
 * `inFlight` at a time, as the scheduler sends them; returns the seconds they took. The
 * renewals' baseline: what the provider itself caps at this latency and concurrency. A second
 * run in the same platform takes a `referencePrefix` of its own (the sandbox answers a repeated
 * reference from its ledger).
 */
export async function sandboxAlone(
  platform: PlatformUnderTest,
  billingDb: Client,
  count: number,
  inFlight: number,
  referencePrefix = 'bench-alone',
): Promise<number> {
  const cards = (
    await billingDb.query<{ authorization_code: string; email: string }>(
      `SELECT a.authorization_code, c.email FROM payment_authorizations a JOIN customers c ON c.id = a.customer_id`,
    )
  ).rows;
  // One kept-alive connection per call in flight, as billing's provider client keeps them.
  const pool = new Pool(platform.env.SANDBOX_PROVIDER_URL, { connections: inFlight });
  const charge = async (k: number) => {
    const card = cards[k % cards.length];
    const { statusCode, body } = await pool.request({
      method: 'POST',
      path: '/transaction/charge_authorization',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.env.SANDBOX_SECRET_KEY}` },
      body: JSON.stringify({
        authorization_code: card.authorization_code,
        email: card.email,
        amount: RENEWAL_AMOUNT,
        currency: 'NGN',
        reference: `${referencePrefix}-${k}-${platform.runId.replace(/_/g, '-')}`,
      }),
    });
    const text = await body.text();
    if (statusCode !== 200) throw new Error(`the sandbox answered a charge with ${statusCode}: ${text}`);
  };
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const k = next++;
      // A connection the sandbox closed as it was reused: sent again under the same reference,
      // which the sandbox answers once (as billing's client would retry).
      await charge(k).catch((err: unknown) => {
        if (!(err instanceof errors.UndiciError)) throw err;
        return charge(k);
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, worker));
  } finally {
    await pool.close();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Successful saved-card charges in the sandbox's own ledger. */
export async function ledgerSuccesses(platform: PlatformUnderTest): Promise<number> {
  const ledger = await connectDatabase(platform, 'sandbox-provider');
  try {
    return await countRows(
      ledger,
      `SELECT count(*) AS n FROM transactions WHERE channel = 'authorization' AND status = 'success'`,
    );
  } finally {
    await ledger.end();
  }
}
