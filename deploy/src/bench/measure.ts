import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { PlatformUnderTest } from '@billing/testing';
import { CpuMeter, type CpuUse } from './cpu-meter';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** Headers that must differ on every request (e.g. a fresh Idempotency-Key), made per request. */
  perRequestHeaders?: () => Record<string, string>;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Meters the CPU of this platform's processes over the measured run (not the warm-up). */
  cpuOf?: PlatformUnderTest;
}

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Where the CPU went over the measured run, when `cpuOf` was given. */
  cpu?: CpuUse;
}

/** A short warm-up run (discarded: JIT, connection pools, caches), then the measured run. */
export async function measure(options: LoadOptions): Promise<Measurement> {
  const { perRequestHeaders } = options;
  const base = {
    url: options.url,
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.headers,
    connections: options.connections,
    requests: perRequestHeaders
      ? [
          {
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              headers: { ...req.headers, ...perRequestHeaders() },
            }),
          },
        ]
      : undefined,
  };
  if (options.warmupSeconds > 0) await autocannon({ ...base, duration: options.warmupSeconds });
  const meter = options.cpuOf && new CpuMeter(options.cpuOf);
  const result = await autocannon({ ...base, duration: options.durationSeconds });
  const cpu = meter?.stop();
  return {
    cpu,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export interface BaselineProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts baseline-server.js in its own process, answering every request with `body`. */
export function startBaseline(body: string): Promise<BaselineProcess> {
  return startChildServer('baseline-server.js', { body });
}

/**
 * Starts same-work-server.js in its own process: the plan read of the auth benchmark done by one
 * Express process on the platform's own databases (see that file).
 */
export function startSameWorkBaseline(databases: {
  databaseUrl: string;
  identityDatabase: string;
  catalogDatabase: string;
}): Promise<BaselineProcess> {
  return startChildServer('same-work-server.js', databases);
}

/** A server script of this folder in a child process: sent `start`, it answers {port} once listening. */
async function startChildServer(script: string, start: object): Promise<BaselineProcess> {
  const child: ChildProcess = fork(join(__dirname, script), [], { stdio: 'inherit' });
  child.send(start);
  const [reply] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${reply.port}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A fixed-width text table: first row is the header. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The p-th percentile (0..100) of values sorted ascending, nearest rank; 0 for none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A merchant a benchmark registered through the gateway: its test-mode API key and access token. */
export interface BenchMerchant {
  testKey: string;
  accessToken: string;
}

/** Registers a merchant through the gateway (`label` keeps its email apart from other benchmarks'). */
export async function registerBenchMerchant(gatewayUrl: string, runId: string, label: string): Promise<BenchMerchant> {
  const res = await fetch(`${gatewayUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${label}-${runId}@example.com`,
      business_name: 'Bench Ltd',
      password: 'bench-password-123',
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /api/v1/auth/register answered ${res.status}: ${text}`);
  const body = JSON.parse(text) as { access_token: string; api_keys: { key: string; is_live: boolean }[] };
  const testKey = body.api_keys.find((k) => !k.is_live);
  if (!testKey) throw new Error(`registration returned no test key: ${text}`);
  return { testKey: testKey.key, accessToken: body.access_token };
}

/**
 * Runs a benchmark's `main` as the process's whole work: its exit code is the process's, and a
 * failure is printed with the benchmark's name before the process exits 1.
 */
export function runBenchmark(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(
        `${name} benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
