import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { connectNats } from '@billing/platform';
import { PLATFORM_PROCESSES, platformEnvironment, portOf, probeReady, type ServiceName } from './platform-processes';
import { freePort } from './ports';

export type { ServiceName };
import { dropDatabases, TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL, uniqueRunId } from './databases';

const REPO_ROOT = resolve(__dirname, '../../..');

/**
 * V8 flags of every platform process (the Dockerfile sets the same in NODE_OPTIONS). A larger
 * young generation: a renewal run allocates many short-lived rows and requests, and fewer
 * scavenges were measured at about 5% more renewals/s.
 */
export const PLATFORM_NODE_FLAGS = ['--max-semi-space-size=32'];

/** A real OS process of the platform, started from its built entry point. */
export class PlatformProcess {
  private child?: ChildProcess;
  output = '';

  constructor(
    readonly name: ServiceName,
    readonly entry: string,
    readonly env: Record<string, string>,
    private readonly ready: () => Promise<void>,
  ) {}

  async start(timeoutMs = 30_000): Promise<void> {
    this.output = '';
    const profile = process.env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROFILE_DIR}`] : [];
    const child = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, ...profile, this.entry], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.length > 200_000) this.output = this.output.slice(-100_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`${this.name} exited with ${child.exitCode} during start:\n${this.output}`);
      }
      try {
        await this.ready();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Sends a signal (SIGSTOP/SIGCONT let tests freeze a service to provoke deadlines). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await once(child, 'exit');
    clearTimeout(timer);
  }
}

export interface PlatformUnderTest {
  runId: string;
  databasePrefix: string;
  eventsStream: string;
  eventsSubjectPrefix: string;
  gatewayUrl: string;
  processes: Record<ServiceName, PlatformProcess>;
  /** The environment every process was started with (ports, prefixes, secrets). */
  env: Record<string, string>;
  /** The database that a service owns in this run, e.g. `${prefix}_identity`. */
  database(service: ServiceName): string;
  stop(): Promise<void>;
}

/**
 * The limits a platform under test runs with unless a test passes its own through `env`: far
 * above anything a suite does, since suites register many merchants from one address and send
 * bursts with one key. The rate-limit tests pass the real values.
 */
export const RELAXED_LIMITS: Record<string, string> = {
  RATE_LIMIT_LIVE_PER_SECOND: '1000000',
  RATE_LIMIT_TEST_PER_SECOND: '1000000',
  AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS: '1000000',
  LOGIN_FAILURES_PER_15_MIN: '1000000',
};

export interface StartOptions {
  /** Extra environment for every process (e.g. a short JWT_TTL_SECONDS). */
  env?: Record<string, string>;
  /** Which processes to start; all of them by default. */
  only?: ServiceName[];
  /** How long each process may take to be ready (30 s by default; tracing on loads its SDK too). */
  startTimeoutMs?: number;
}

/**
 * Starts the platform's processes as a user would run them, on free ports, against fresh
 * databases and a fresh event stream; `stop` terminates them and drops the databases.
 */
export async function startPlatform(options: StartOptions = {}): Promise<PlatformUnderTest> {
  const runId = uniqueRunId();
  const ports: Record<string, string> = {};
  for (const spec of PLATFORM_PROCESSES) {
    ports[spec.portVariable] = String(await freePort());
    if (spec.http) ports[spec.http.portVariable] = String(await freePort());
  }
  const base: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'warn',
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_NAME_PREFIX: runId,
    NATS_URL: TEST_NATS_URL,
    REDIS_URL: TEST_REDIS_URL,
    // Rate-limit counters of this run apart from every other run's on the shared Redis.
    REDIS_KEY_PREFIX: runId,
    ...RELAXED_LIMITS,
    EVENTS_STREAM: `EVENTS_${runId}`,
    EVENTS_SUBJECT_PREFIX: `events_${runId}`,
    JWT_SECRET: `test-secret-${runId}-0123456789abcdef`,
    SANDBOX_SECRET_KEY: `sk_test_sandbox_${runId}`,
    PUBLIC_URL: `http://127.0.0.1:${ports.PORT}`,
    // One registration's scrypt alone takes about a second on these machines, and the 5 s
    // default timed out a cold registration under CI load. A test about deadlines sets its own.
    GRPC_DEADLINE_MS: '20000',
    ...ports,
  };
  const common = { ...base, ...platformEnvironment({ ...base, ...options.env }), ...options.env };
  const gatewayUrl = `http://127.0.0.1:${common.PORT}`;
  const processes = Object.fromEntries(
    PLATFORM_PROCESSES.map((spec) => [
      spec.name,
      new PlatformProcess(spec.name, resolve(REPO_ROOT, spec.entry), common, () =>
        probeReady(spec, portOf(spec, common)),
      ),
    ]),
  ) as Record<ServiceName, PlatformProcess>;
  const wanted = options.only ?? PLATFORM_PROCESSES.map((spec) => spec.name);
  const stopAll = async () => {
    await Promise.all(Object.values(processes).map((p) => p.stop()));
    await dropDatabases(runId);
    await deleteStream(common.EVENTS_STREAM);
  };
  try {
    // All at once: no process needs another to start (they connect on first use), and each
    // spends much of its start waiting on PostgreSQL, so a test's platform is up sooner.
    const starts = PLATFORM_PROCESSES.filter((spec) => wanted.includes(spec.name)).map((spec) =>
      processes[spec.name].start(options.startTimeoutMs),
    );
    const failed = (await Promise.allSettled(starts)).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    runId,
    databasePrefix: runId,
    eventsStream: common.EVENTS_STREAM,
    eventsSubjectPrefix: common.EVENTS_SUBJECT_PREFIX,
    gatewayUrl,
    processes,
    env: common,
    database: (service) => `${runId}_${service.replace(/-/g, '_')}`,
    stop: stopAll,
  };
}

async function deleteStream(stream: string): Promise<void> {
  const nats = await connectNats(TEST_NATS_URL, 'test-cleanup');
  try {
    const jsm = await nats.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => undefined);
  } finally {
    await nats.close();
  }
}
