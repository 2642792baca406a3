/**
 * `npm run test:save-timings`: writes the last run's suite times (test-results/) into the
 * committed suite-timings.json, which the lane sequencer balances the lanes by. Run it after a
 * whole `npm test` when suites were added or their times moved, and commit the file.
 */
import { writeFileSync } from 'node:fs';
import { COMMITTED_TIMINGS, readRunTimings, timingsFileContent } from './suite-timings';

const suites = readRunTimings();
if (suites.length === 0) {
  process.stderr.write('no timings in test-results/: run npm test first\n');
  process.exit(1);
}
writeFileSync(COMMITTED_TIMINGS, timingsFileContent(suites));
process.stdout.write(`${suites.length} suites written to ${COMMITTED_TIMINGS}\n`);
