import { rmSync } from 'node:fs';
import { dropDatabasesLeftForLater } from '../databases';
import { sharedPlatformRecords, stopSharedPlatform } from '../shared-platform';

/**
 * jest's global teardown: stops this run's shared platforms, drops their databases and those
 * the suites' own platforms left for the end, and removes the logs.
 */
export = async function sharedPlatformTeardown(): Promise<void> {
  const dir = process.env.SHARED_PLATFORM_DIR;
  if (!dir) return;
  await Promise.all(sharedPlatformRecords(dir).map((record) => stopSharedPlatform(record)));
  await dropDatabasesLeftForLater(dir);
  if (!process.env.KEEP_SHARED_PLATFORM_LOGS) rmSync(dir, { recursive: true, force: true });
};
