import type { Sequelize } from 'sequelize-typescript';
import { createLogger, openDatabase } from '@billing/platform';
import { TEST_DATABASE_URL } from '@billing/testing';
import { billingMigrations } from '../../src/db/migrations';
import { billingModels } from '../../src/db/models';

/** A fresh, migrated billing database of this run (dropped with dropDatabases(runId)). */
export function openBillingTestDatabase(runId: string, label: string): Promise<Sequelize> {
  return openDatabase({
    url: TEST_DATABASE_URL,
    database: `${runId}_billing`,
    models: billingModels,
    migrations: billingMigrations,
    logger: createLogger(label, 'error'),
    poolMax: 4,
  });
}
