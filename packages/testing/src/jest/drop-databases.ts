/**
 * `node drop-databases.js <prefix>...`: drops the databases of stopped test platforms, and of
 * test runs that died over an hour ago, after a run has ended (dropDatabasesInBackground).
 */
import { dropDatabasesOf, staleRunPrefixes } from '../databases';

const HOUR_MS = 3_600_000;

async function dropAll(prefixes: string[]): Promise<void> {
  const stale = await staleRunPrefixes(new Date(Date.now() - HOUR_MS));
  await dropDatabasesOf([...new Set([...prefixes, ...stale])], 4);
}

dropAll(process.argv.slice(2)).catch((err: unknown) => {
  // Nobody waits for this process: what it could not drop, a later run's does.
  process.stderr.write(`dropping test databases: ${String(err)}\n`);
  process.exit(1);
});
