import { Client } from 'pg';
import { Sequelize, type ModelCtor } from 'sequelize-typescript';
import { QueryTypes, type QueryInterface, type Transaction } from 'sequelize';
import type { DatabaseConfig } from './config';
import type { Logger } from './logger';
import { registerDatabasePoolMetrics } from './metrics';

/** One versioned migration; its name orders it ("0001-create-merchants"). */
export interface Migration {
  name: string;
  up(context: MigrationContext): Promise<void>;
}

export interface MigrationContext {
  sequelize: Sequelize;
  queryInterface: QueryInterface;
  transaction: Transaction;
  /** Runs raw SQL inside the migration's transaction. */
  sql(statement: string): Promise<void>;
}

/** Where a process's database is and how its pool and connections behave (databaseOptionsFrom). */
export interface DatabaseConnectionOptions {
  /** Server URL; its path (if any) is ignored in favour of `database`. */
  url: string;
  database: string;
  /** What pg_stat_activity shows for the process's connections: the service's name. */
  applicationName?: string;
  poolMax?: number;
  /** How long an unused pooled connection stays open. */
  poolIdleMs?: number;
  /** How long a query waits for a free pooled connection. */
  acquireTimeoutMs?: number;
  /** statement_timeout of each connection; 0 or unset sends none. */
  statementTimeoutMs?: number;
  /** idle_in_transaction_session_timeout of each connection; 0 or unset sends none. */
  idleInTransactionTimeoutMs?: number;
}

export interface DatabaseOptions extends DatabaseConnectionOptions {
  models: ModelCtor[];
  migrations: Migration[];
  logger: Logger;
}

/** The settings of databaseEnvSchema that say how a process connects. */
export type DatabaseConnectionConfig = Pick<
  DatabaseConfig,
  | 'DATABASE_URL'
  | 'DATABASE_DIRECT_URL'
  | 'DATABASE_NAME_PREFIX'
  | 'DATABASE_POOL_MAX'
  | 'DATABASE_POOL_IDLE_MS'
  | 'DATABASE_POOL_ACQUIRE_TIMEOUT_MS'
  | 'DATABASE_STATEMENT_TIMEOUT_MS'
  | 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'
>;

/**
 * The one translation of a process's database settings into openDatabase's options: every
 * service and the gateway open their database with it, so a setting reaches all of them.
 * `direct` picks DATABASE_DIRECT_URL (a connection that holds session-level locks; never a
 * transaction-mode pooler, docs/deployment.md "PostgreSQL connections").
 */
export function databaseOptionsFrom(
  config: DatabaseConnectionConfig,
  service: string,
  options: { direct?: boolean } = {},
): DatabaseConnectionOptions {
  return {
    url: options.direct ? (config.DATABASE_DIRECT_URL ?? config.DATABASE_URL) : config.DATABASE_URL,
    database: `${config.DATABASE_NAME_PREFIX}_${service.replace(/-/g, '_')}`,
    applicationName: service,
    poolMax: config.DATABASE_POOL_MAX,
    poolIdleMs: config.DATABASE_POOL_IDLE_MS,
    acquireTimeoutMs: config.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the database when it is missing; safe when several replicas start at once. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return;
    try {
      await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    } catch (err) {
      // Another replica created it between our check and our CREATE.
      const code = (err as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw err;
    }
  } finally {
    await admin.end();
  }
}

/**
 * Opens the service's own database: creates it if missing, runs pending migrations (each in a
 * transaction under a transaction-scoped advisory lock, so replicas starting together migrate
 * once, also through a transaction-mode pooler), then returns the connection. Never calls
 * sync(): the schema is exactly what the migrations say.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Sequelize> {
  await ensureDatabase(options.url, options.database);
  const url = databaseUrl(options.url, options.database);
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    models: options.models,
    pool: {
      max: options.poolMax ?? 10,
      min: 0,
      idle: options.poolIdleMs ?? 10_000,
      acquire: options.acquireTimeoutMs ?? 30_000,
    },
    // Startup parameters of each connection (pg sends those set); none is session state a
    // pooler could hand to another client (docs/deployment.md, "PostgreSQL connections").
    dialectOptions: {
      application_name: options.applicationName,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.idleInTransactionTimeoutMs
        ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }
        : {}),
    },
    define: { underscored: true, timestamps: false, freezeTableName: true },
    timezone: '+00:00',
  });
  await migrate(sequelize, options.migrations, options.logger);
  registerDatabasePoolMetrics(sequelize, options.database);
  return sequelize;
}

/** The names of the migrations already applied, none when their table does not exist yet. */
async function appliedMigrations(sequelize: Sequelize, transaction?: Transaction): Promise<Set<string>> {
  try {
    const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', {
      type: QueryTypes.SELECT,
      transaction,
    });
    return new Set(rows.map((row) => row.name));
  } catch (err) {
    const code = (err as { original?: { code?: string } }).original?.code;
    if (code === '42P01') return new Set();
    throw err;
  }
}

/**
 * Applies each pending migration in a transaction of its own that first takes a
 * transaction-scoped advisory lock and reads schema_migrations again: a replica that waited
 * for another finds the migration recorded and skips it, and the record commits with the
 * migration or not at all. No session state, so it runs through PgBouncer's transaction mode
 * (docs/deployment.md, "PostgreSQL connections"). Hand-written rather than umzug: its storage
 * records a migration apart from the migration's transaction and it has no transaction-scoped
 * lock. The table keeps umzug's layout, so databases it migrated carry on.
 */
async function migrate(sequelize: Sequelize, migrations: Migration[], logger: Logger): Promise<void> {
  // Nothing pending, the usual restart: one read, no lock.
  const applied = await appliedMigrations(sequelize);
  const pending = migrations.filter((m) => !applied.has(m.name)).sort((a, b) => a.name.localeCompare(b.name));
  const ran: string[] = [];
  for (const migration of pending) {
    const done = await sequelize.transaction(async (transaction) => {
      const sql = async (statement: string) => {
        await sequelize.query(statement, { transaction });
      };
      // A migration may rewrite a large table and waits for another replica's: no request timeouts.
      await sql('SET LOCAL statement_timeout = 0');
      await sql('SET LOCAL idle_in_transaction_session_timeout = 0');
      await sql("SELECT pg_advisory_xact_lock(hashtext('schema_migrations'))");
      await sql('CREATE TABLE IF NOT EXISTS schema_migrations (name varchar(255) PRIMARY KEY)');
      if ((await appliedMigrations(sequelize, transaction)).has(migration.name)) return false;
      await migration.up({ sequelize, queryInterface: sequelize.getQueryInterface(), transaction, sql });
      await sequelize.query('INSERT INTO schema_migrations (name) VALUES ($1)', {
        bind: [migration.name],
        transaction,
      });
      return true;
    });
    if (done) ran.push(migration.name);
  }
  if (ran.length > 0) logger.info({ migrations: ran }, 'database migrated');
}
