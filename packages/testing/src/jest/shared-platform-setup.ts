import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clearRunTimings, resultsDirectory } from './suite-timings';

/**
 * jest's global setup: a directory of this run's own for the shared platforms (one per worker,
 * started by their first borrower, see shared-platform.ts), handed to the tests through
 * SHARED_PLATFORM_DIR. A run on its own starts its timings afresh; lanes leave that to the
 * runner, which reads all of theirs together.
 */
export = async function sharedPlatformSetup(): Promise<void> {
  const dir = join(resultsDirectory(), 'shared-platforms', String(process.pid));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.env.SHARED_PLATFORM_DIR = dir;
  if (!process.env.TEST_LANE) clearRunTimings();
};
