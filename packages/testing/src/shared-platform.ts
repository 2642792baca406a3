import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
// The lifecycle module alone, not the platform index (see heavyPlatform in platform-processes.ts).
import { processIsAlive } from '@billing/platform/lifecycle';
import { serviceTlsFiles } from '@billing/platform/dev-tls';
import { dropDatabasesAfterRun } from './databases';
import { currentSuite } from './jest/suite-timings';
import { freePort } from './ports';
import { PLATFORM_PROCESSES, portOf, probeReady, type ServiceName } from './platform-processes';
import { channelCredentialsFrom, deleteStream, startRecordedPlatform, type PlatformUnderTest } from './start-platform';

/**
 * The settings of the platform every default suite shares (docs/decisions.md, "How the suite
 * is laid out"): the platform's defaults, with billing's scheduler and catalog's expiry sweep
 * each second (so that real-time settlement and expiry come within a second or two of being
 * due; test-clock advances run their work at once anyway), settlement of an unknown charge after
 * 3 s, webhooks allowed to this machine's plain-HTTP receivers, and live mode's Paystack played
 * by the sandbox (set when it starts). Shorter loops were measured: idle at 200 to 500 ms they
 * cost a fifth of a core, on a machine of two. A suite that needs anything else (the SSRF guard,
 * other limits or timeouts, a process to stop) starts its own with startPlatform.
 */
export const SHARED_PLATFORM_ENV: Record<string, string> = {
  RENEWAL_POLL_MS: '1000',
  CHECKOUT_EXPIRY_SWEEP_MS: '1000',
  PAYMENT_SETTLE_AFTER_MS: '3000',
  ALLOW_INSECURE_WEBHOOKS: 'true',
};

/**
 * A platform a suite borrows: everything of PlatformUnderTest but its processes, which a
 * borrower may not stop, freeze or replicate. `stop()` gives it back, checked healthy.
 */
export type SharedPlatform = Omit<PlatformUnderTest, 'processes' | 'replicas'>;

/** What the jest process keeps on disk about its shared platform, from one suite to the next. */
export interface SharedPlatformRecord {
  runId: string;
  gatewayUrl: string;
  eventsStream: string;
  eventsSubjectPrefix: string;
  env: Record<string, string>;
  certificates: string;
  pids: Partial<Record<ServiceName, number>>;
  logs: Partial<Record<ServiceName, string>>;
  /** The suites that used it, in order; the last one is using it or used it last. */
  usedBy: string[];
}

/** Set by the global setup: one directory per jest run. */
function sharedDirectory(): string {
  const dir = process.env.SHARED_PLATFORM_DIR;
  if (!dir) throw new Error('SHARED_PLATFORM_DIR is not set: run the suite through jest.config.js (npm test)');
  return dir;
}

/** One shared platform per jest worker (a lane's single one when in band). */
const recordPath = () => join(sharedDirectory(), `worker-${process.env.JEST_WORKER_ID ?? '1'}.json`);

function readRecord(): SharedPlatformRecord | undefined {
  const path = recordPath();
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as SharedPlatformRecord) : undefined;
}

const writeRecord = (record: SharedPlatformRecord) => writeFileSync(recordPath(), JSON.stringify(record, null, 2));

/**
 * How long a live process may take to answer its health probe before the platform counts as
 * unhealthy. Both lanes and the processes share two cores, so one probe of a second is missed
 * now and then by a healthy process (seen in CI); a process that has exited fails at once.
 */
const HEALTH_PROBE_TIMEOUT_MS = 3000;
const HEALTH_PROBE_ATTEMPTS = 3;

/** Why one process is not healthy (gone, or not answering any of its probes), or undefined. */
async function processProblem(record: SharedPlatformRecord, spec: (typeof PLATFORM_PROCESSES)[number]) {
  let lastError = '';
  for (let attempt = 1; attempt <= HEALTH_PROBE_ATTEMPTS; attempt++) {
    const pid = record.pids[spec.name];
    if (pid === undefined || !processIsAlive(pid)) return `${spec.name} has exited`;
    try {
      await probeReady(spec, portOf(spec, record.env), HEALTH_PROBE_TIMEOUT_MS);
      return undefined;
    } catch (err) {
      lastError = (err as Error).message;
    }
  }
  return `${spec.name} does not answer its health probe, ${HEALTH_PROBE_ATTEMPTS} tries (${lastError})`;
}

/** Why the platform is not healthy (a process gone or not answering its probe), or undefined. */
async function problemOf(record: SharedPlatformRecord): Promise<string | undefined> {
  const problems = await Promise.all(PLATFORM_PROCESSES.map((spec) => processProblem(record, spec)));
  const found = problems.filter(Boolean);
  return found.length ? found.join('; ') : undefined;
}

/** Stops a shared platform's processes and removes its event stream (its databases: the caller's). */
export async function stopSharedPlatform(record: SharedPlatformRecord): Promise<void> {
  const pids = Object.values(record.pids).filter((pid): pid is number => pid !== undefined && processIsAlive(pid));
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (pids.some(processIsAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of pids.filter(processIsAlive)) process.kill(pid, 'SIGKILL');
  await deleteStream(record.eventsStream);
}

async function startShared(logDirectory: string): Promise<SharedPlatformRecord> {
  mkdirSync(logDirectory, { recursive: true });
  // Live mode speaks Paystack's protocol to the sandbox, as a merchant's live key would to Paystack.
  const sandboxPort = String(await freePort());
  const sandboxSecret = `sk_test_shared_${randomBytes(12).toString('hex')}`;
  const env = {
    ...SHARED_PLATFORM_ENV,
    SANDBOX_PROVIDER_PORT: sandboxPort,
    SANDBOX_SECRET_KEY: sandboxSecret,
    PAYSTACK_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    PAYSTACK_SECRET_KEY: sandboxSecret,
  };
  const platform = await startRecordedPlatform({ env, logDirectory }, true);
  const files = platform.tlsFiles('gateway');
  return {
    runId: platform.runId,
    gatewayUrl: platform.gatewayUrl,
    eventsStream: platform.eventsStream,
    eventsSubjectPrefix: platform.eventsSubjectPrefix,
    env: platform.env,
    certificates: join(files.GRPC_TLS_CA_FILE, '..'),
    pids: Object.fromEntries(PLATFORM_PROCESSES.map((spec) => [spec.name, platform.processes[spec.name].pid])),
    logs: Object.fromEntries(PLATFORM_PROCESSES.map((spec) => [spec.name, platform.processes[spec.name].logFile])),
    usedBy: [],
  };
}

/** Where the run's shared platform record is written once the platform is up (RUN_SHARED_PLATFORM). */
export const runSharedPlatformPath = (dir: string): string => join(dir, 'run-shared-platform.json');

/** Written instead of the record when the run's shared platform could not start. */
const failurePath = (path: string) => `${path}.failed`;

/**
 * The run's shared platform, which `npm test` starts beside its lanes and stops after them
 * (RUN_SHARED_PLATFORM names its record): one platform's start and idle loops for the whole
 * run instead of one per lane. The lanes do not wait for it: their first suites start platforms
 * of their own, and a borrower waits for the record (or the failure) to be written. Its
 * borrowers are written down per lane, so that a failure can name the suites that used it last.
 */
export async function startRunSharedPlatform(dir: string): Promise<SharedPlatformRecord> {
  const path = runSharedPlatformPath(dir);
  try {
    const record = await startShared(join(dir, 'logs-run'));
    writeFileSync(path, JSON.stringify(record, null, 2));
    return record;
  } catch (err) {
    writeFileSync(failurePath(path), (err as Error).stack ?? String(err));
    throw err;
  }
}

/** Reads a run's shared platform record (RUN_SHARED_PLATFORM), to borrow it. */
export function readRunSharedPlatform(path: string): SharedPlatformRecord {
  return JSON.parse(readFileSync(path, 'utf8')) as SharedPlatformRecord;
}

/**
 * How long a borrower waits for the run's shared platform to come up, within a hook's 60 s: it
 * starts with the lanes, and each lane's first suites start platforms of their own.
 */
const RUN_SHARED_START_TIMEOUT_MS = 55_000;

/** The run's shared platform record once the runner has written it; throws when its start failed. */
async function awaitRunSharedPlatform(path: string): Promise<SharedPlatformRecord> {
  const deadline = Date.now() + RUN_SHARED_START_TIMEOUT_MS;
  for (;;) {
    if (existsSync(path)) return readRunSharedPlatform(path);
    if (existsSync(failurePath(path)))
      throw new Error(`the run's shared platform failed to start:\n${readFileSync(failurePath(path), 'utf8')}`);
    if (Date.now() > deadline)
      throw new Error(`the run's shared platform was not up after ${RUN_SHARED_START_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const laneUsersFile = (path: string, lane: string) => `${path}.lane-${lane}.used-by`;

/** The suites of each lane that borrowed the run's platform last, for a failure to name. */
function lastRunBorrowers(path: string): string {
  const dir = join(path, '..');
  const files = readdirSync(dir).filter((name) => name.startsWith(`${basename(path)}.lane-`));
  const last = files.map((name) => readFileSync(join(dir, name), 'utf8').trim().split('\n').at(-1));
  return last.filter(Boolean).join(' and ') || 'no suite';
}

async function borrowRunSharedPlatform(path: string, suite: string): Promise<SharedPlatformRecord> {
  const record = await awaitRunSharedPlatform(path);
  const problem = await problemOf(record);
  if (problem)
    throw new Error(
      `the run's shared platform is unhealthy (${problem}); it was last used by ${lastRunBorrowers(path)}`,
    );
  appendFileSync(laneUsersFile(path, process.env.TEST_LANE ?? '1'), `${suite}\n`);
  return record;
}

/**
 * The shared platform: the run's when `npm test` started one, else the jest process's own,
 * started by its first borrower. It is checked healthy first. A jest process's own platform a
 * previous suite left broken is replaced, and that suite is named (its own `stop()` has failed
 * too); the run's is not replaced under the other lane's feet: the suite fails, naming the
 * last borrowers. Data is kept apart by tenancy: each test registers its own merchant.
 */
export async function sharedPlatform(): Promise<SharedPlatform> {
  const suite = currentSuite();
  const runShared = process.env.RUN_SHARED_PLATFORM;
  if (runShared) return borrowed(await borrowRunSharedPlatform(runShared, suite), suite);
  let record = readRecord();
  if (record) {
    const problem = await problemOf(record);
    if (problem) {
      process.stderr.write(
        `[shared platform] ${record.usedBy.at(-1)} left the shared platform unhealthy (${problem}); ${suite} starts a new one\n`,
      );
      await stopSharedPlatform(record);
      await dropDatabasesAfterRun(record.runId);
      record = undefined;
    }
  }
  record ??= await startShared(join(sharedDirectory(), `logs-${process.env.JEST_WORKER_ID ?? '1'}-${Date.now()}`));
  record.usedBy.push(suite);
  writeRecord(record);
  return borrowed(record, suite);
}

/** What a borrower gets of a shared platform's record. */
function borrowed(current: SharedPlatformRecord, suite: string): SharedPlatform {
  const tlsFiles = (service: ServiceName) => serviceTlsFiles(current.certificates, service);
  return {
    runId: current.runId,
    databasePrefix: current.runId,
    eventsStream: current.eventsStream,
    eventsSubjectPrefix: current.eventsSubjectPrefix,
    gatewayUrl: current.gatewayUrl,
    env: current.env,
    tlsFiles,
    grpcCredentials: (service) => channelCredentialsFrom(tlsFiles(service)),
    database: (service) => `${current.runId}_${service.replace(/-/g, '_')}`,
    output: (service) => {
      const log = current.logs[service];
      return log && existsSync(log) ? readFileSync(log, 'utf8') : '';
    },
    /** Gives the platform back; fails, naming this suite, when the suite left it unhealthy. */
    stop: async () => {
      const problem = await problemOf(current);
      if (problem) throw new Error(`${suite} left the shared platform unhealthy: ${problem}`);
    },
  };
}

/** Every shared platform of a jest run (the global teardown stops them). */
export function sharedPlatformRecords(dir: string): SharedPlatformRecord[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('worker-') && name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as SharedPlatformRecord);
}
