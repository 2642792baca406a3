/**
 * Migrations through PgBouncer in transaction mode (docs/deployment.md, "PostgreSQL
 * connections"): every service's real migrations, two replicas at once per database, through a
 * private pgbouncer (Debian's, installed when missing) whose two server connections per database
 * the clients' transactions share. Each migration must run exactly once and leave the schema a
 * direct connection's migration leaves.
 */
import { Client } from 'pg';
import { createLogger, databaseUrl, openDatabase, type Migration } from '@billing/platform';
import { dropDatabases, startPgbouncer, TEST_DATABASE_URL, uniqueRunId, type RunningPgbouncer } from '@billing/testing';
import { analyticsMigrations } from '../../services/analytics/src/db/migrations';
import { billingMigrations } from '../../services/billing/src/db/migrations';
import { catalogMigrations } from '../../services/catalog/src/db/migrations';
import { identityMigrations } from '../../services/identity/src/db/migrations';
import { notificationMigrations } from '../../services/notification/src/db/migrations';
import { policyMigrations } from '../../services/policy/src/db/migrations';
import { portalMigrations } from '../../services/portal/src/db/migrations';
import { sandboxMigrations } from '../../services/sandbox-provider/src/db/migrations';
import { gatewayMigrations } from '../../gateway/src/db/migrations';

const SERVICES: [string, Migration[]][] = [
  ['gateway', gatewayMigrations],
  ['identity', identityMigrations],
  ['catalog', catalogMigrations],
  ['billing', billingMigrations],
  ['policy', policyMigrations],
  ['notification', notificationMigrations],
  ['analytics', analyticsMigrations],
  ['portal', portalMigrations],
  ['sandbox_provider', sandboxMigrations],
];

/** Replicas starting at once on one database. */
const RUNNERS = 2;

const logger = createLogger('pgbouncer-migrations-test', 'silent');

/** The migrations, each counting its runs in `runs` (the real `up`, unchanged). */
function counted(migrations: Migration[], runs: Map<string, number>): Migration[] {
  return migrations.map((m) => ({
    name: m.name,
    up: async (context) => {
      runs.set(m.name, (runs.get(m.name) ?? 0) + 1);
      await m.up(context);
    },
  }));
}

/** Tables, columns, indexes and constraints of a database's public schema, comparable. */
async function schemaOf(database: string): Promise<Record<string, string[]>> {
  const client = new Client({ connectionString: databaseUrl(TEST_DATABASE_URL, database) });
  await client.connect();
  try {
    const lines = async (sql: string) => (await client.query<{ line: string }>(sql)).rows.map((r) => r.line).sort();
    return {
      columns: await lines(
        `SELECT concat_ws(' ', table_name, column_name, data_type, is_nullable, column_default) AS line
           FROM information_schema.columns WHERE table_schema = 'public'`,
      ),
      indexes: await lines(`SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'`),
      constraints: await lines(
        `SELECT concat_ws(' ', c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)) AS line
           FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`,
      ),
      migrations: await lines('SELECT name AS line FROM schema_migrations'),
    };
  } finally {
    await client.end();
  }
}

describe('migrations through PgBouncer in transaction mode', () => {
  const runId = uniqueRunId('pgb');
  let pgbouncer: RunningPgbouncer;

  beforeAll(async () => {
    const upstream = new URL(TEST_DATABASE_URL);
    pgbouncer = await startPgbouncer({
      upstream: { host: upstream.hostname, port: Number(upstream.port || 5432), user: upstream.username || 'postgres' },
      poolMode: 'transaction',
      poolSize: 2,
    });
  }, 300_000);

  afterAll(async () => {
    await pgbouncer?.stop();
    await dropDatabases(runId);
  });

  it.each(SERVICES)(
    'applies every %s migration exactly once with two replicas at once, the schema whole',
    async (service, migrations) => {
      const runs = new Map<string, number>();
      const pooled = `${runId}_${service}`;
      // As PgBouncer's documentation asks for transaction mode: no statement_timeout startup
      // parameter (set on the role instead), so 0 here.
      const opened = await Promise.all(
        Array.from({ length: RUNNERS }, () =>
          openDatabase({
            url: pgbouncer.url,
            database: pooled,
            applicationName: service,
            statementTimeoutMs: 0,
            idleInTransactionTimeoutMs: 0,
            models: [],
            migrations: counted(migrations, runs),
            logger,
          }),
        ),
      );
      // The clients did reach PostgreSQL through the pooler, in transaction mode.
      const pools = await pgbouncer.admin('SHOW POOLS');
      const pool = pools.find((row) => row.database === pooled);
      expect(pool?.pool_mode).toBe('transaction');
      await Promise.all(opened.map((sequelize) => sequelize.close()));

      expect([...runs.keys()].sort()).toEqual(migrations.map((m) => m.name).sort());
      expect([...runs.values()].every((n) => n === 1)).toBe(true);

      // The same migrations over a direct connection, one runner: the reference schema.
      const direct = `${runId}_${service}_direct`;
      const reference = await openDatabase({
        url: TEST_DATABASE_URL,
        database: direct,
        models: [],
        migrations,
        logger,
      });
      await reference.close();
      const [throughPooler, expected] = await Promise.all([schemaOf(pooled), schemaOf(direct)]);
      expect(throughPooler.migrations).toHaveLength(migrations.length);
      expect(throughPooler.columns.length).toBeGreaterThan(0);
      expect(throughPooler).toEqual(expected);
    },
    120_000,
  );
});
