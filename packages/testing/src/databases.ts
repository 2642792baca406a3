import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

export const TEST_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';
export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A prefix no other run uses, so every run gets fresh databases and a fresh event stream. */
export function uniqueRunId(label = 't'): string {
  return `${label}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** Runs one query against a service's database (assertions about what is stored). */
export async function queryDatabase<R extends Record<string, unknown>>(
  database: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A connection to the server's `postgres` database, for creating and dropping others. */
export async function adminClient(): Promise<Client> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

/** Drops every database whose name starts with the run's prefix. */
export async function dropDatabases(prefix: string): Promise<void> {
  await dropDatabasesOf([prefix]);
}

/**
 * Drops the databases of several runs, `connections` at a time. Each DROP DATABASE waits for a
 * checkpoint (about half a second here under load); PostgreSQL serves concurrent requests
 * with one, so many drops at once cost little more than one.
 */
export async function dropDatabasesOf(prefixes: string[], connections = 8): Promise<void> {
  if (prefixes.length === 0) return;
  const lister = await adminClient();
  let names: string[];
  try {
    const { rows } = await lister.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE ANY($1::text[])',
      [prefixes.map((prefix) => `${prefix}\\_%`)],
    );
    names = rows.map((row) => row.datname);
  } finally {
    await lister.end();
  }
  const queue = [...names];
  await Promise.all(
    Array.from({ length: Math.min(connections, queue.length) }, async () => {
      const client = await adminClient();
      try {
        for (let name = queue.shift(); name; name = queue.shift()) {
          await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
        }
      } finally {
        await client.end();
      }
    }),
  );
}

/**
 * Under jest (SHARED_PLATFORM_DIR set by the global setup), a stopped platform's databases are
 * listed for the end of the run instead of dropped now: each DROP DATABASE forces a checkpoint
 * (half a second or more here), and dropping them while other suites run slowed the whole run
 * (every suite's PostgreSQL work waited behind the flushes). Elsewhere at once.
 */
export async function dropDatabasesAfterRun(prefix: string): Promise<void> {
  const dir = process.env.SHARED_PLATFORM_DIR;
  if (!dir) return dropDatabases(prefix);
  appendFileSync(join(dir, DROP_LATER_FILE), `${prefix}\n`);
}

const DROP_LATER_FILE = 'databases-to-drop';

/** The run prefixes dropDatabasesAfterRun listed in a run's directory. */
export function databasesLeftForLater(dir: string): string[] {
  const file = join(dir, DROP_LATER_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Drops the databases of these run prefixes, and those of test runs that ended or died over an
 * hour ago (a run's prefix carries its start time: uniqueRunId), in a process of its own that
 * outlives the caller: the test run's result does not wait for PostgreSQL's checkpoints.
 */
export function dropDatabasesInBackground(prefixes: string[]): void {
  const dropper = spawn(process.execPath, [join(__dirname, 'jest', 'drop-databases.js'), ...prefixes], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
  });
  dropper.unref();
}

/** Run prefixes of test databases started before `olderThan` (leftovers of runs that died). */
export async function staleRunPrefixes(olderThan: Date): Promise<string[]> {
  const admin = await adminClient();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE NOT datistemplate AND datname ~ '^t_[0-9a-z]+_[0-9a-f]{6}_'",
    );
    const prefixes = new Set(rows.map((r) => r.datname.split('_').slice(0, 3).join('_')));
    return [...prefixes].filter((prefix) => parseInt(prefix.split('_')[1], 36) < olderThan.getTime());
  } finally {
    await admin.end();
  }
}
