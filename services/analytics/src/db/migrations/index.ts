import {
  parkedEventRetentionIndexMigration,
  parkedEventsMigration,
  testClocksMigration,
  type Migration,
} from '@billing/platform';
import { createReadModel } from './0001-create-read-model';

/** Every migration of the analytics database, in order. Append; never edit a shipped one. */
export const analyticsMigrations: Migration[] = [
  parkedEventsMigration,
  testClocksMigration,
  createReadModel,
  parkedEventRetentionIndexMigration,
];
