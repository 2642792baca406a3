import { randomBytes } from 'node:crypto';
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

/** Drops every database whose name starts with the run's prefix. */
export async function dropDatabases(prefix: string): Promise<void> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${prefix}\\_%`,
    ]);
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
