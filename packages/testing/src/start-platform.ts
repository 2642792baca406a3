import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { createDevelopmentCertificates, serviceTlsFiles, type ServiceTlsFiles } from '@billing/platform/dev-tls';
import { heavyPlatform, PLATFORM_PROCESSES, platformEnvironment, type ServiceName } from './platform-processes';
import { PlatformProcess } from './platform-process';
import { freePort } from './ports';
import { dropDatabasesAfterRun, TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL, uniqueRunId } from './databases';
import { createDatabasesFromTemplates, ensureDatabaseTemplates } from './database-templates';
import { currentSuite, recordPlatformStart } from './jest/suite-timings';

export type { ServiceName };

export interface PlatformUnderTest {
  runId: string;
  /** What a process (its first replica) has printed since it started. */
  output(service: ServiceName): string;
  databasePrefix: string;
  eventsStream: string;
  eventsSubjectPrefix: string;
  gatewayUrl: string;
  processes: Record<ServiceName, PlatformProcess>;
  /** Every replica of each process (the first is `processes[name]`); one each unless asked. */
  replicas: Record<ServiceName, PlatformProcess[]>;
  /** The environment every process was started with (ports, prefixes, secrets), besides its own tlsFiles. */
  env: Record<string, string>;
  /** The gRPC mutual-TLS files of a process (its certificate names it). */
  tlsFiles(service: ServiceName): ServiceTlsFiles;
  /** Channel credentials presenting a process's certificate, for a test that calls a service as it. */
  grpcCredentials(service: ServiceName): ChannelCredentials;
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
  PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS: '1000000',
  LOGIN_FAILURES_PER_15_MIN: '1000000',
};

/** How long a process of a platform starting all at once may take to answer its probe. */
const PARALLEL_START_TIMEOUT_MS = Number(process.env.PLATFORM_START_TIMEOUT_MS) || 120_000;

let certificateDirectory: Promise<string> | undefined;

/** One CA and one certificate per process, made once per test process (docs/decisions.md). */
function platformCertificates(): Promise<string> {
  certificateDirectory ??= mkdtemp(join(tmpdir(), 'billing-tls-')).then(async (dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // Every process's, the analytics service's among them (billing's ListAnalyticsEvents is its alone).
    await createDevelopmentCertificates(
      dir,
      PLATFORM_PROCESSES.map((spec) => spec.name),
    );
    return dir;
  });
  return certificateDirectory;
}

/** Channel credentials that present the given certificate files. */
export function channelCredentialsFrom(files: ServiceTlsFiles): ChannelCredentials {
  // Loaded by the suites that call a service, not by every suite (see heavyPlatform).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { credentials } = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
  return credentials.createSsl(
    readFileSync(files.GRPC_TLS_CA_FILE),
    readFileSync(files.GRPC_TLS_KEY_FILE),
    readFileSync(files.GRPC_TLS_CERT_FILE),
  );
}

export interface StartOptions {
  /** Extra environment for every process (e.g. a short JWT_TTL_SECONDS). */
  env?: Record<string, string>;
  /** Extra environment for one process's replicas only, on top of `env` (e.g. its own NATS_URL). */
  processEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Which processes to start; all of them by default. */
  only?: ServiceName[];
  /**
   * How many replicas of a process to run (1 by default), on one set of databases. The others
   * reach a gRPC service's replicas through one target listing them all (round robin); HTTP
   * processes are reached at the first replica's address, the rest at their own.
   */
  replicas?: Partial<Record<ServiceName, number>>;
  /** How long each process may take to be ready (30 s by default; tracing on loads its SDK too). */
  startTimeoutMs?: number;
  /**
   * Each service migrates an empty database at start, as in production, instead of starting on
   * a copy of its migrated template (database-templates.ts).
   */
  freshDatabases?: boolean;
  /** Each process writes its output to `<logDirectory>/<name>-<replica>.log` (see PlatformProcess's logFile). */
  logDirectory?: string;
}

/**
 * Starts the platform's processes as a user would run them, on free ports, against fresh
 * databases and a fresh event stream; `stop` terminates them and drops the databases.
 */
export function startPlatform(options: StartOptions = {}): Promise<PlatformUnderTest> {
  return startRecordedPlatform(options, false);
}

/** startPlatform, recorded in the run's timings as a suite's own platform or a shared one. */
export async function startRecordedPlatform(options: StartOptions, shared: boolean): Promise<PlatformUnderTest> {
  const started = Date.now();
  const runId = uniqueRunId();
  if (!options.freshDatabases) {
    const templates = await ensureDatabaseTemplates(migrateTemplates);
    const owners = (options.only ?? PLATFORM_PROCESSES.map((spec) => spec.name)).map((name) => name.replace(/-/g, '_'));
    await createDatabasesFromTemplates(runId, new Map([...templates].filter(([service]) => owners.includes(service))));
  }
  const platform = await launchPlatform(runId, options);
  recordPlatformStart({
    suite: currentSuite(),
    seconds: (Date.now() - started) / 1000,
    processes: Object.values(platform.replicas)
      .flat()
      .filter((p) => p.pid !== undefined).length,
    shared,
  });
  return platform;
}

/**
 * Builds the template databases: the whole platform started once on empty databases named
 * `<prefix>_<service>`, each service migrating its own, then stopped with its databases kept.
 */
async function migrateTemplates(prefix: string): Promise<void> {
  const builder = await launchPlatform(prefix, { freshDatabases: true });
  await Promise.all(Object.values(builder.replicas).flatMap((all) => all.map((p) => p.stop())));
  await deleteStream(builder.eventsStream);
}

async function launchPlatform(runId: string, options: StartOptions): Promise<PlatformUnderTest> {
  // The ports of each replica; the first replica's are the platform's.
  const replicaPorts = new Map<ServiceName, Record<string, string>[]>();
  const balanced: Record<string, string> = {};
  for (const spec of PLATFORM_PROCESSES) {
    const own: Record<string, string>[] = [];
    for (let i = 0; i < (options.replicas?.[spec.name] ?? 1); i++) {
      own.push({
        [spec.portVariable]: String(await freePort()),
        ...(spec.http ? { [spec.http.portVariable]: String(await freePort()) } : {}),
        [spec.metrics.portVariable]: String(await freePort()),
      });
    }
    replicaPorts.set(spec.name, own);
    if (own.length > 1 && spec.kind === 'grpc' && spec.urlVariable) {
      balanced[spec.urlVariable] = `ipv4:${own.map((p) => `127.0.0.1:${p[spec.portVariable]}`).join(',')}`;
    }
  }
  const ports = Object.assign({}, ...[...replicaPorts.values()].map((own) => own[0])) as Record<string, string>;
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
    DOCUMENT_LINKS_KEY: `test-document-links-${runId}-0123456789abcdef`,
    PORTAL_LINKS_KEY: `test-portal-links-${runId}-0123456789abcdef`,
    SANDBOX_SECRET_KEY: `sk_test_sandbox_${runId}`,
    PUBLIC_URL: `http://127.0.0.1:${ports.PORT}`,
    // One registration's scrypt alone takes about a second on these machines, and the 5 s
    // default timed out a cold registration under CI load. A test about deadlines sets its own.
    GRPC_DEADLINE_MS: '20000',
    // Registration is not what most suites test: scrypt at N=2^10 instead of 2^17 (the suites
    // about hashing set 17). Identity refuses a cost below 17 outside NODE_ENV=test.
    PASSWORD_SCRYPT_COST: '10',
    ...ports,
  };
  const common = { ...base, ...platformEnvironment({ ...base, ...balanced, ...options.env }), ...options.env };
  const gatewayUrl = `http://127.0.0.1:${common.PORT}`;
  const certificates = await platformCertificates();
  const tlsFiles = (service: ServiceName) => serviceTlsFiles(certificates, service);
  const replicas = Object.fromEntries(
    PLATFORM_PROCESSES.map((spec) => [
      spec.name,
      replicaPorts
        .get(spec.name)!
        .map((own, replica) =>
          PlatformProcess.of(
            spec,
            { ...common, ...own, ...tlsFiles(spec.name), ...options.env, ...options.processEnv?.[spec.name] },
            options.logDirectory ? { logFile: join(options.logDirectory, `${spec.name}-${replica}.log`) } : {},
          ),
        ),
    ]),
  ) as Record<ServiceName, PlatformProcess[]>;
  const processes = Object.fromEntries(PLATFORM_PROCESSES.map((spec) => [spec.name, replicas[spec.name][0]])) as Record<
    ServiceName,
    PlatformProcess
  >;
  const wanted = options.only ?? PLATFORM_PROCESSES.map((spec) => spec.name);
  const stopAll = async () => {
    await Promise.all(Object.values(replicas).flatMap((all) => all.map((p) => p.stop())));
    await dropDatabasesAfterRun(runId);
    await deleteStream(common.EVENTS_STREAM);
  };
  try {
    // All at once: no process needs another to start (they connect on first use), and each
    // spends much of its start waiting on PostgreSQL, so a test's platform is up sooner.
    // Eight processes starting together on two loaded cores each take far longer than one
    // alone: each gets the time the eight would have had one after another.
    const starts = PLATFORM_PROCESSES.filter((spec) => wanted.includes(spec.name)).flatMap((spec) =>
      replicas[spec.name].map((replica) => replica.start(options.startTimeoutMs ?? PARALLEL_START_TIMEOUT_MS)),
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
    replicas,
    env: common,
    tlsFiles,
    output: (service) => processes[service].output,
    grpcCredentials: (service) => channelCredentialsFrom(tlsFiles(service)),
    database: (service) => `${runId}_${service.replace(/-/g, '_')}`,
    stop: stopAll,
  };
}

/**
 * One more replica of a running platform's process on free ports, with `env` on top of the
 * platform's (started by the caller). Its address is `http://127.0.0.1:<port>` for an HTTP
 * process, `127.0.0.1:<port>` for a gRPC one.
 */
export async function createReplica(
  platform: Pick<PlatformUnderTest, 'env' | 'tlsFiles'>,
  name: ServiceName,
  env: Record<string, string> = {},
): Promise<{ process: PlatformProcess; port: number }> {
  const spec = PLATFORM_PROCESSES.find((s) => s.name === name)!;
  const port = await freePort();
  const own = {
    [spec.portVariable]: String(port),
    ...(spec.http ? { [spec.http.portVariable]: String(await freePort()) } : {}),
    [spec.metrics.portVariable]: String(await freePort()),
  };
  return { process: PlatformProcess.of(spec, { ...platform.env, ...platform.tlsFiles(name), ...env, ...own }), port };
}

export async function deleteStream(stream: string): Promise<void> {
  const { connectNats } = await heavyPlatform();
  const nats = await connectNats(TEST_NATS_URL, 'test-cleanup');
  try {
    const jsm = await nats.jetstreamManager();
    await jsm.streams.delete(stream).catch(() => undefined);
  } finally {
    await nats.close();
  }
}
