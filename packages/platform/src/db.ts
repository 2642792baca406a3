import { Client } from 'pg';
import { Sequelize, type ModelCtor } from 'sequelize-typescript';
import type { QueryInterface, Transaction } from 'sequelize';
import type * as UmzugModule from 'umzug';
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

export interface DatabaseOptions {
  /** Server URL; its path (if any) is ignored in favour of `database`. */
  url: string;
  database: string;
  models: ModelCtor[];
  migrations: Migration[];
  logger: Logger;
  poolMax?: number;
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
 * Opens the service's own database: creates it if missing, runs pending migrations under an
 * advisory lock (so replicas starting together migrate once), then returns the connection.
 * Never calls sync(): the schema is exactly what the migrations say.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Sequelize> {
  await ensureDatabase(options.url, options.database);
  const url = databaseUrl(options.url, options.database);
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    models: options.models,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: false, freezeTableName: true },
    timezone: '+00:00',
  });
  await migrate(sequelize, url, options.migrations, options.logger);
  registerDatabasePoolMetrics(sequelize, options.database);
  return sequelize;
}

/** The names of the migrations already applied (umzug's table), none when it does not exist yet. */
async function appliedMigrations(client: Client): Promise<Set<string>> {
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
    return new Set(rows.map((row) => row.name));
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return new Set();
    throw err;
  }
}

async function migrate(sequelize: Sequelize, url: string, migrations: Migration[], logger: Logger): Promise<void> {
  const lock = new Client({ connectionString: url });
  await lock.connect();
  let locked = false;
  try {
    // Nothing pending, the usual restart: done without loading umzug, whose command-line
    // dependencies alone cost about 0.13 s of CPU at every process start.
    const applied = await appliedMigrations(lock);
    if (migrations.every((m) => applied.has(m.name))) return;
    await lock.query("SELECT pg_advisory_lock(hashtext('schema_migrations'))");
    locked = true;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, see above
    const { Umzug, SequelizeStorage } = require('umzug') as typeof UmzugModule;
    const umzug = new Umzug({
      migrations: [...migrations]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((m) => ({
          name: m.name,
          up: () =>
            sequelize.transaction(async (transaction) => {
              await m.up({
                sequelize,
                queryInterface: sequelize.getQueryInterface(),
                transaction,
                sql: async (statement) => {
                  await sequelize.query(statement, { transaction });
                },
              });
            }),
        })),
      storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
      logger: undefined,
    });
    const ran = await umzug.up();
    if (ran.length > 0) logger.info({ migrations: ran.map((m) => m.name) }, 'database migrated');
  } finally {
    if (locked) await lock.query("SELECT pg_advisory_unlock(hashtext('schema_migrations'))").catch(() => undefined);
    await lock.end();
  }
}
