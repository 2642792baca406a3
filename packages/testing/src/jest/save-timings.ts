/**
 * `npm run test:save-timings`: writes the last run's suite times (test-results/) into the
 * committed suite-timings.json, which the lane sequencer balances the lanes by; suites the run
 * did not include keep their committed time. Run it after a whole `npm test` when suites were
 * added or their times moved, and commit the file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITTED_TIMINGS, committedTimings, REPO_ROOT, readRunTimings, timingsFileContent } from './suite-timings';

const suites = readRunTimings();
if (suites.length === 0) {
  process.stderr.write('no timings in test-results/: run npm test first\n');
  process.exit(1);
}
const measured = new Set(suites.map((s) => s.suite));
const kept = Object.entries(committedTimings())
  .filter(([suite]) => !measured.has(suite) && existsSync(join(REPO_ROOT, suite)))
  .map(([suite, seconds]) => ({ suite, seconds, tests: 0, failed: 0 }));
writeFileSync(COMMITTED_TIMINGS, timingsFileContent([...suites, ...kept]));
process.stdout.write(`${suites.length} suites measured, ${kept.length} kept, in ${COMMITTED_TIMINGS}\n`);
