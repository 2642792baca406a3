/**
 * `node drop-databases.js <prefix>...`: drops the databases of stopped test platforms, started
 * by dropDatabasesSoon so that no suite waits for the checkpoints (databases.ts).
 */
import { dropDatabasesOf } from '../databases';

dropDatabasesOf(process.argv.slice(2)).catch((err: unknown) => {
  // The run's teardown drops whatever is left; nothing here is worth failing a test for.
  process.stderr.write(`dropping ${process.argv.slice(2).join(' ')}: ${String(err)}\n`);
  process.exit(1);
});
