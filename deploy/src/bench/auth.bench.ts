/**
 * Benchmark "auth": the cost of an API-key-authenticated request through the gateway (HTTP ->
 * API-key check against identity over gRPC, cached per API_KEY_CACHE_TTL_MS -> rate limit ->
 * the plan, from the gateway's plan cache or catalog over gRPC -> JSON) compared with two
 * baselines in their own processes: a bare node:http server returning the same body, and the
 * same work done by one Express process (same-work-server.ts: the key cached in memory, the same
 * SELECT on the same PostgreSQL database, the same JSON; issue 16's goal is the gateway at 0.7
 * of it or more). A last row sends POSTs with a fresh Idempotency-Key each, so the idempotency
 * store is in that path. Runs the real processes on fresh databases via startPlatform(). Run
 * with `npm run bench -- auth`.
 *
 * Environment: BENCH_DURATION_S [10], BENCH_CONNECTIONS [50], BENCH_WARMUP_S [3].
 */
import { randomUUID } from 'node:crypto';
import { startPlatform, type PlatformUnderTest } from '@billing/testing';
import {
  measure,
  registerBenchMerchant,
  round,
  runBenchmark,
  startBaseline,
  startSameWorkBaseline,
  table,
  type Measurement,
} from './measure';
import { cpuMsPerUnit, cpuPerUnitRows } from './cpu-meter';

/**
 * The measured route: a plan read with an API key, end to end (gateway -> identity for the key,
 * cached -> catalog over gRPC -> PostgreSQL). `{id}` is the plan the benchmark creates.
 */
export const ROUTE_TEMPLATE = '/api/v1/plans/{id}';

/** The measured write: a plan created with a fresh Idempotency-Key per request. */
export const POST_ROUTE = '/api/v1/plans';
const POST_BODY = JSON.stringify({ name: 'Bench plan', amount: 5000.5 });

/**
 * Extra environment for the platform under load. A test key is limited to 25 requests/s
 * (docs/rate-limits.md): lifted far above the load here, or the benchmark would measure 429
 * answers (it then fails and says so). The limiter stays in the path: every request is still
 * counted in Redis.
 */
export const PLATFORM_ENV: Record<string, string> = { RATE_LIMIT_TEST_PER_SECOND: '1000000' };

const DURATION_S = Number(process.env.BENCH_DURATION_S || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S || 3);

async function createPlan(platform: PlatformUnderTest, apiKey: string): Promise<string> {
  const res = await fetch(`${platform.gatewayUrl}/api/v1/plans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: POST_BODY,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/v1/plans answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { id: string }).id;
}

async function main(): Promise<number> {
  process.stdout.write(
    `auth benchmark: GET ${ROUTE_TEMPLATE} and POST ${POST_ROUTE} (fresh Idempotency-Key each), ${CONNECTIONS} connections, ${DURATION_S} s after ${WARMUP_S} s warm-up\n`,
  );
  const platform = await startPlatform({ env: PLATFORM_ENV });
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  let sameWork: Awaited<ReturnType<typeof startSameWorkBaseline>> | undefined;
  try {
    const apiKey = (await registerBenchMerchant(platform.gatewayUrl, platform.runId, 'auth')).testKey;
    const route = ROUTE_TEMPLATE.replace('{id}', await createPlan(platform, apiKey));
    const headers = { 'x-api-key': apiKey };
    const first = await fetch(`${platform.gatewayUrl}${route}`, { headers });
    const body = await first.text();
    if (first.status !== 200) throw new Error(`GET ${route} answered ${first.status}: ${body}`);
    baseline = await startBaseline(body);
    sameWork = await startSameWorkBaseline({
      databaseUrl: platform.env.DATABASE_URL,
      identityDatabase: platform.database('identity'),
      catalogDatabase: platform.database('catalog'),
    });
    // The same work means the same answer: checked once before measuring.
    const sameWorkAnswer = await fetch(`${sameWork.url}${route}`, { headers });
    const sameWorkBody = await sameWorkAnswer.text();
    if (sameWorkAnswer.status !== 200 || sameWorkBody !== body) {
      throw new Error(`the same-work baseline answered ${sameWorkAnswer.status} ${sameWorkBody}, not ${body}`);
    }

    const load = { connections: CONNECTIONS, durationSeconds: DURATION_S, warmupSeconds: WARMUP_S };
    const gateway = await measure({ ...load, url: `${platform.gatewayUrl}${route}`, headers, cpuOf: platform });
    const plain = await measure({ ...load, url: `${baseline.url}${route}` });
    const same = await measure({ ...load, url: `${sameWork.url}${route}`, headers });
    const writes = await measure({
      ...load,
      url: `${platform.gatewayUrl}${POST_ROUTE}`,
      method: 'POST',
      body: POST_BODY,
      headers: { ...headers, 'content-type': 'application/json' },
      perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }),
      cpuOf: platform,
    });
    // CPU per request of each process, which sizes its pods (docs/deployment.md, "Sizing").
    const cpuWindows = [
      { label: 'GET', use: gateway.cpu!, units: gateway.requests },
      { label: 'POST', use: writes.cpu!, units: writes.requests },
    ];

    const row = (name: string, m: Measurement) => [
      name,
      round(m.requestsPerSecond, 0).toString(),
      round(m.p50Ms).toString(),
      round(m.p99Ms).toString(),
      String(m.requests),
      String(m.non2xx + m.errors),
    ];
    const rpsRatio = gateway.requestsPerSecond / plain.requestsPerSecond;
    const p99Ratio = gateway.p99Ms / Math.max(plain.p99Ms, 0.001);
    const sameWorkRatio = gateway.requestsPerSecond / same.requestsPerSecond;
    const sameWorkP99Ratio = gateway.p99Ms / Math.max(same.p99Ms, 0.001);
    process.stdout.write(
      `\n${table([
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'failed'],
        row(`gateway GET ${route}`, gateway),
        row('baseline node:http', plain),
        row('same-work baseline: Express + key cache + SELECT', same),
        row(`gateway POST ${POST_ROUTE} + Idempotency-Key`, writes),
      ])}\nratio gateway/node:http: req/s ${round(rpsRatio, 3)}, p99 ${round(p99Ratio, 2)}` +
        `\nratio gateway/same-work: req/s ${round(sameWorkRatio, 3)} (goal >= 0.7), p99 ${round(sameWorkP99Ratio, 2)}\n\n` +
        `${table(cpuPerUnitRows(cpuWindows))}\n\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        bench: 'auth',
        route: `GET ${ROUTE_TEMPLATE}`,
        connections: CONNECTIONS,
        duration_s: DURATION_S,
        node: process.version,
        gateway: {
          rps: round(gateway.requestsPerSecond, 1),
          p50_ms: gateway.p50Ms,
          p99_ms: gateway.p99Ms,
          non2xx: gateway.non2xx,
          errors: gateway.errors,
        },
        baseline: {
          rps: round(plain.requestsPerSecond, 1),
          p50_ms: plain.p50Ms,
          p99_ms: plain.p99Ms,
          non2xx: plain.non2xx,
          errors: plain.errors,
        },
        same_work_baseline: {
          rps: round(same.requestsPerSecond, 1),
          p50_ms: same.p50Ms,
          p99_ms: same.p99Ms,
          non2xx: same.non2xx,
          errors: same.errors,
        },
        idempotent_post: {
          rps: round(writes.requestsPerSecond, 1),
          p50_ms: writes.p50Ms,
          p99_ms: writes.p99Ms,
          non2xx: writes.non2xx,
          errors: writes.errors,
        },
        ratio_rps: round(rpsRatio, 4),
        ratio_p99: round(p99Ratio, 3),
        ratio_rps_same_work: round(sameWorkRatio, 4),
        ratio_p99_same_work: round(sameWorkP99Ratio, 3),
        cpu_ms_per_get: cpuMsPerUnit(gateway.cpu!, gateway.requests),
        cpu_ms_per_post: cpuMsPerUnit(writes.cpu!, writes.requests),
      })}\n`,
    );
    for (const [name, m] of [
      ['gateway GET', gateway],
      ['gateway POST', writes],
      ['same-work baseline', same],
    ] as const) {
      if (m.non2xx + m.errors === 0) continue;
      process.stderr.write(
        `${name} answered ${m.non2xx} non-2xx responses and ${m.errors} errors (rate limited?): these figures do not measure the route\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    await baseline?.stop();
    await sameWork?.stop();
    await platform.stop();
  }
}

runBenchmark('auth', main);
