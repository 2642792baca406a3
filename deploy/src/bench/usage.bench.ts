/**
 * Benchmark "usage": metered usage records per second through POST /api/v1/usage/batch (batches
 * of 1000 over several connections: HTTP -> API-key check -> zod -> billing over gRPC -> one
 * INSERT ... ON CONFLICT DO NOTHING of unnested arrays in PostgreSQL) beside a baseline of plain SQL
 * multi-row inserts of the same rows into a copy of usage_records (same indexes and foreign key) in
 * the same database and run.
 * Goal (docs/benchmarks.md): >= 10,000 records/s through the gateway. Run with
 * `npm run bench -- usage`.
 *
 * Environment: BENCH_DURATION_S [10], BENCH_CONNECTIONS [8], BENCH_WARMUP_S [3],
 * BENCH_SUBSCRIPTIONS [4].
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startPlatform, TEST_DATABASE_URL, type PlatformUnderTest } from '@billing/testing';
import { percentile, registerBenchMerchant, round, runBenchmark, table } from './measure';

/**
 * The per-key limit (25 requests/s for a test key, docs/rate-limits.md) lifted far above the
 * load, so this measures ingestion, not 429 answers; the limiter still counts every request.
 */
export const PLATFORM_ENV: Record<string, string> = { RATE_LIMIT_TEST_PER_SECOND: '1000000' };

export const GOAL_RECORDS_PER_SECOND = 10_000;
/** Issue 16's goal: the platform path at 0.7 of plain inserts of the same rows, or better. */
export const GOAL_RATIO = 0.7;
const BATCH_SIZE = 1000;
const DURATION_S = Number(process.env.BENCH_DURATION_S || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S || 3);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS || 4);

interface Row {
  subscription_id: string;
  quantity: string;
  idempotency_key: string;
  description: string;
}

interface Throughput {
  recordsPerSecond: number;
  records: number;
  batches: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
}

async function call(
  platform: PlatformUnderTest,
  method: string,
  path: string,
  body: unknown,
  apiKey?: string,
): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await fetch(`${platform.gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
}

async function expectStatus(
  promise: ReturnType<typeof call>,
  status: number,
  what: string,
): Promise<Record<string, unknown>> {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** A metered subscription, made the way a merchant's customer makes one: a paid hosted checkout. */
async function subscribe(platform: PlatformUnderTest, apiKey: string, planId: string): Promise<string> {
  const session = await expectStatus(
    call(platform, 'POST', '/api/v1/checkout/sessions', { plan_id: planId }, apiKey),
    201,
    'POST /checkout/sessions',
  );
  const pay = await fetch(`${platform.gatewayUrl}/checkout/${String(session.code)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: `bench-${randomUUID().slice(0, 8)}@example.com` }),
    redirect: 'manual',
  });
  const outcome = await fetch(pay.headers.get('location') ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ outcome: 'success' }),
    redirect: 'manual',
  });
  await fetch(outcome.headers.get('location') ?? '', { redirect: 'manual' });
  const completed = await expectStatus(
    call(platform, 'GET', `/api/v1/checkout/sessions/${String(session.code)}`, undefined, apiKey),
    200,
    'GET /checkout/sessions/{code}',
  );
  if (completed.status !== 'COMPLETED') throw new Error(`checkout did not complete: ${JSON.stringify(completed)}`);
  return String(completed.subscription_id);
}

/** Batches with keys never used before: every record is a new one (no duplicate short-cuts). */
function batchFactory(subscriptionIds: string[], label: string): () => Row[] {
  let next = 0;
  return () => {
    const rows: Row[] = [];
    for (let i = 0; i < BATCH_SIZE; i++, next++) {
      rows.push({
        subscription_id: subscriptionIds[next % subscriptionIds.length],
        quantity: `${(next % 997) + 1}.${next % 1000000}`.replace(/\.0+$/, ''),
        idempotency_key: `${label}-${next}`,
        description: 'bench',
      });
    }
    return rows;
  };
}

const summary = (t: Throughput) => ({
  records_per_s: round(t.recordsPerSecond, 1),
  records: t.records,
  batches: t.batches,
  failed_batches: t.failed,
  batch_p50_ms: t.p50Ms,
  batch_p99_ms: t.p99Ms,
});

/** `connections` loops sending one batch after the other for `seconds`; records counted as stored. */
async function drive(
  seconds: number,
  connections: number,
  send: (worker: number) => Promise<{ stored: number; ok: boolean }>,
): Promise<Throughput> {
  const latencies: number[] = [];
  let records = 0;
  let batches = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const { stored, ok } = await send(worker);
        latencies.push(performance.now() - t0);
        batches++;
        records += stored;
        if (!ok) failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    recordsPerSecond: records / elapsed,
    records,
    batches,
    failed,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
  };
}

async function main(): Promise<number> {
  process.stdout.write(
    `usage benchmark: POST /api/v1/usage/batch, ${BATCH_SIZE} records per batch, ${CONNECTIONS} connections, ` +
      `${DURATION_S} s after ${WARMUP_S} s warm-up\n`,
  );
  const platform = await startPlatform({ env: PLATFORM_ENV });
  const sqlClients: Client[] = [];
  try {
    const apiKey = (await registerBenchMerchant(platform.gatewayUrl, platform.runId, 'usage')).testKey;
    const plan = await expectStatus(
      call(platform, 'POST', '/api/v1/plans', { name: 'Metered', amount: 1000, usage_unit_amount: 0.05 }, apiKey),
      201,
      'POST /plans',
    );
    const subscriptionIds: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) subscriptionIds.push(await subscribe(platform, apiKey, String(plan.id)));

    // Through the gateway.
    const gatewayBatches = batchFactory(subscriptionIds, `gw-${platform.runId}`);
    const viaGateway = async (): Promise<{ stored: number; ok: boolean }> => {
      const res = await call(platform, 'POST', '/api/v1/usage/batch', { records: gatewayBatches() }, apiKey);
      const accepted = res.status === 200 ? Number(res.body.accepted) : 0;
      return { stored: accepted, ok: res.status === 200 && accepted === BATCH_SIZE };
    };
    await drive(WARMUP_S, CONNECTIONS, viaGateway);
    const gateway = await drive(DURATION_S, CONNECTIONS, viaGateway);

    // Plain SQL: the same rows, multi-row INSERT ... ON CONFLICT DO NOTHING into a copy of the table.
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${platform.database('billing')}`;
    for (let i = 0; i < CONNECTIONS; i++) {
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      sqlClients.push(client);
    }
    // The same table as usage_records (columns, checks, its four indexes and the foreign key to
    // subscriptions), so the baseline pays for the same index and constraint work as the platform.
    await sqlClients[0].query('CREATE TABLE bench_usage_scratch (LIKE usage_records INCLUDING ALL)');
    await sqlClients[0].query(
      'ALTER TABLE bench_usage_scratch ADD FOREIGN KEY (subscription_id) REFERENCES subscriptions (id)',
    );
    const projectId = randomUUID();
    const sqlBatches = batchFactory(subscriptionIds, `sql-${platform.runId}`);
    const viaSql = async (worker: number): Promise<{ stored: number; ok: boolean }> => {
      const rows = sqlBatches();
      const now = new Date();
      const params: unknown[] = [projectId, false, now];
      const values = rows.map((r) => {
        const base = params.length;
        params.push(randomUUID(), r.subscription_id, r.quantity, r.description, r.idempotency_key, now);
        return `($${base + 1}, $1, $2, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, false, $3)`;
      });
      const result = await sqlClients[worker].query(
        `INSERT INTO bench_usage_scratch
           (id, project_id, livemode, subscription_id, quantity, description, idempotency_key, timestamp, billed, created_at)
         VALUES ${values.join(', ')}
         ON CONFLICT (subscription_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING id`,
        params,
      );
      return { stored: result.rowCount ?? 0, ok: result.rowCount === BATCH_SIZE };
    };
    await drive(WARMUP_S, CONNECTIONS, viaSql);
    const plain = await drive(DURATION_S, CONNECTIONS, viaSql);

    const row = (name: string, t: Throughput) => [
      name,
      round(t.recordsPerSecond, 0).toString(),
      String(t.p50Ms),
      String(t.p99Ms),
      String(t.records),
      String(t.failed),
    ];
    const ratio = gateway.recordsPerSecond / plain.recordsPerSecond;
    const goalMet = gateway.recordsPerSecond >= GOAL_RECORDS_PER_SECOND;
    const ratioMet = ratio >= GOAL_RATIO;
    process.stdout.write(
      `\n${table([
        ['target', 'records/s', 'batch p50 ms', 'batch p99 ms', 'records', 'failed batches'],
        row('gateway POST /api/v1/usage/batch', gateway),
        row('baseline SQL multi-row INSERT', plain),
      ])}\nratio gateway/baseline: records/s ${round(ratio, 3)} (goal >= ${GOAL_RATIO}: ${ratioMet ? 'met' : 'NOT met'}); ` +
        `goal >= ${GOAL_RECORDS_PER_SECOND} records/s through the gateway: ${goalMet ? 'met' : 'NOT met'}\n\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        bench: 'usage',
        route: 'POST /api/v1/usage/batch',
        batch_size: BATCH_SIZE,
        connections: CONNECTIONS,
        duration_s: DURATION_S,
        node: process.version,
        gateway: summary(gateway),
        baseline: summary(plain),
        ratio: round(ratio, 4),
        goal_records_per_s: GOAL_RECORDS_PER_SECOND,
        goal_met: goalMet,
        goal_ratio: GOAL_RATIO,
        goal_ratio_met: ratioMet,
      })}\n`,
    );
    if (gateway.failed > 0) {
      process.stderr.write(
        `${gateway.failed} gateway batches were not fully accepted: these figures do not measure the route\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    await Promise.all(sqlClients.map((c) => c.end().catch(() => undefined)));
    await platform.stop();
  }
}

runBenchmark('usage', main);
