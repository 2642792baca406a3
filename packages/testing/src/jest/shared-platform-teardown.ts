import { rmSync } from 'node:fs';
import { databasesLeftForLater, dropDatabasesInBackground } from '../databases';
import { sharedPlatformRecords, stopSharedPlatform } from '../shared-platform';

/**
 * jest's global teardown: stops this run's shared platforms and removes the logs; their
 * databases and those the suites' own platforms left go to a process that drops them after the
 * run (databases.ts, dropDatabasesInBackground).
 */
export = async function sharedPlatformTeardown(): Promise<void> {
  const dir = process.env.SHARED_PLATFORM_DIR;
  if (!dir) return;
  const records = sharedPlatformRecords(dir);
  await Promise.all(records.map((record) => stopSharedPlatform(record)));
  dropDatabasesInBackground([...databasesLeftForLater(dir), ...records.map((record) => record.runId)]);
  if (!process.env.KEEP_SHARED_PLATFORM_LOGS) rmSync(dir, { recursive: true, force: true });
};
