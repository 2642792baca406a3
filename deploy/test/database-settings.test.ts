/**
 * The database settings (docs/configuration.md, "Database") reach every process: each opens its
 * database through databaseOptionsFrom, whose connections carry the pool size, the timeouts and
 * the service's name (application_name), as pg_stat_activity and the connections themselves show.
 */
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { createLogger, databaseEnvSchema, databaseOptionsFrom, openDatabase, parseConfig } from '@billing/platform';
import {
  dropDatabases,
  PLATFORM_PROCESSES,
  queryDatabase,
  startPlatform,
  TEST_DATABASE_URL,
  uniqueRunId,
  type PlatformUnderTest,
} from '@billing/testing';
import { configModuleOf, runConfigLoaders } from './support/manifests';

/** The processes that own a database (documents keeps none). */
const WITH_DATABASE = PLATFORM_PROCESSES.map((spec) => spec.name).filter((name) => name !== 'documents');

const SETTINGS = {
  DATABASE_POOL_MAX: '2',
  // Long enough that a process started first still holds its connections when the last is up.
  DATABASE_POOL_IDLE_MS: '600000',
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: '300',
  DATABASE_STATEMENT_TIMEOUT_MS: '400',
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000',
};

describe('the database settings reach every process', () => {
  describe('through databaseOptionsFrom, on real connections', () => {
    const runId = uniqueRunId('dbset');
    let sequelize: Sequelize;

    beforeAll(async () => {
      const config = parseConfig(databaseEnvSchema, {
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_NAME_PREFIX: runId,
        ...SETTINGS,
      });
      sequelize = await openDatabase({
        ...databaseOptionsFrom(config, 'policy'),
        models: [],
        migrations: [],
        logger: createLogger('database-settings-test', 'silent'),
      });
    });
    afterAll(async () => {
      await sequelize?.close();
      await dropDatabases(runId);
    });

    const show = async (name: string) =>
      (await sequelize.query<Record<string, string>>(`SHOW ${name}`, { type: QueryTypes.SELECT }))[0][name];

    it('sets statement_timeout, idle_in_transaction_session_timeout and application_name on each connection', async () => {
      expect(await show('statement_timeout')).toBe('400ms');
      expect(await show('idle_in_transaction_session_timeout')).toBe('5s');
      expect(await show('application_name')).toBe('policy');
      expect(sequelize.getDatabaseName()).toBe(`${runId}_policy`);
    });

    it('cancels a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS', async () => {
      await expect(sequelize.query('SELECT pg_sleep(2)')).rejects.toMatchObject({ original: { code: '57014' } });
    });

    it('opens at most DATABASE_POOL_MAX connections, and a query waiting longer than the acquire timeout fails', async () => {
      const held = await Promise.all([1, 2].map(() => sequelize.connectionManager.getConnection({ type: 'write' })));
      try {
        const open = await queryDatabase<{ n: number }>(
          'postgres',
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'policy'`,
          [`${runId}_policy`],
        );
        expect(open[0].n).toBe(2);
        await expect(sequelize.query('SELECT 1')).rejects.toMatchObject({
          name: 'SequelizeConnectionAcquireTimeoutError',
        });
      } finally {
        held.forEach((connection) => sequelize.connectionManager.releaseConnection(connection));
      }
      await expect(sequelize.query('SELECT 1', { type: QueryTypes.SELECT })).resolves.toEqual([{ '?column?': 1 }]);
    });
  });

  it('is read by every process’s own configuration loader and carried by databaseOptionsFrom', () => {
    const loaded = runConfigLoaders(
      WITH_DATABASE.map((service) => ({
        label: service,
        configModule: configModuleOf(service),
        env: {
          NODE_ENV: 'test',
          DATABASE_URL: TEST_DATABASE_URL,
          // The secrets some processes require whatever the mode.
          JWT_SECRET: 'database-settings-test-0123456789abcdef',
          DOCUMENT_LINKS_KEY: 'database-settings-test-0123456789abcdef',
          PORTAL_LINKS_KEY: 'database-settings-test-0123456789abcdef',
          ...SETTINGS,
        },
      })),
    );
    expect(
      Object.entries(loaded).flatMap(([service, { refused }]) => (refused ? [`${service}: ${refused}`] : [])),
    ).toEqual([]);
    const carried = Object.fromEntries(
      WITH_DATABASE.map((service) => {
        const config = loaded[service].config as Parameters<typeof databaseOptionsFrom>[0] | null;
        const options = config && databaseOptionsFrom(config, service);
        return [
          service,
          options && [
            options.poolMax,
            options.acquireTimeoutMs,
            options.statementTimeoutMs,
            options.idleInTransactionTimeoutMs,
          ],
        ];
      }),
    );
    expect(carried).toEqual(Object.fromEntries(WITH_DATABASE.map((service) => [service, [2, 300, 400, 5000]])));
  });

  describe('in the platform’s own processes', () => {
    let platform: PlatformUnderTest;
    /** Milder than above: a loaded machine's start must not trip them. */
    const PLATFORM_SETTINGS = {
      DATABASE_POOL_MAX: '3',
      DATABASE_POOL_IDLE_MS: '600000',
      DATABASE_STATEMENT_TIMEOUT_MS: '20000',
    };

    beforeAll(async () => {
      platform = await startPlatform({ env: PLATFORM_SETTINGS });
    }, 300_000);
    afterAll(async () => {
      await platform?.stop();
    });

    it.each(WITH_DATABASE)('%s opens its database with the settings’ pool, named after itself', async (service) => {
      const rows = await queryDatabase<{ application_name: string; n: number }>(
        'postgres',
        `SELECT application_name, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 GROUP BY application_name`,
        [platform.database(service)],
      );
      const own = rows.find((row) => row.application_name === service);
      expect(own?.n).toBeGreaterThanOrEqual(1);
      expect(own?.n).toBeLessThanOrEqual(Number(PLATFORM_SETTINGS.DATABASE_POOL_MAX));
    });
  });
});
