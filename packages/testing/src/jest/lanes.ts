import { readFileSync } from 'node:fs';
import { extract, parse } from 'jest-docblock';

/** What a suite missing from suite-timings.json is expected to take (a new suite, in seconds). */
export const UNKNOWN_SUITE_SECONDS = 10;

/**
 * The docblock pragma of a suite that kills, freezes, restarts or replicates processes, or
 * whose assertions hang on timing: `@lane timing-critical <why>` in the file's first comment.
 * Those run one at a time in lane 1.
 */
export const TIMING_CRITICAL = 'timing-critical';

export function isTimingCritical(path: string): boolean {
  const lane = parse(extract(readFileSync(path, 'utf8'))).lane;
  return (Array.isArray(lane) ? lane : [lane]).some((value) => value?.split(/\s+/)[0] === TIMING_CRITICAL);
}

/**
 * Splits suites into lanes, one per `--shard=i/n` (docs/decisions.md, "How the suite is laid
 * out"): every timing-critical suite in lane 1, then the others, slowest first, each to the lane
 * with the least expected time so far (times from the committed suite-timings.json). Within a
 * lane the slowest suites run first.
 */
export function assignLanes<T>(
  suites: T[],
  laneCount: number,
  name: (suite: T) => string,
  critical: (suite: T) => boolean,
  seconds: Record<string, number>,
): T[][] {
  const expected = (suite: T) => seconds[name(suite)] ?? UNKNOWN_SUITE_SECONDS;
  const lanes: T[][] = Array.from({ length: laneCount }, () => []);
  const load = new Array<number>(laneCount).fill(0);
  const slowestFirst = [...suites].sort((a, b) => expected(b) - expected(a) || name(a).localeCompare(name(b)));
  for (const suite of slowestFirst.filter(critical)) {
    lanes[0].push(suite);
    load[0] += expected(suite);
  }
  for (const suite of slowestFirst.filter((s) => !critical(s))) {
    const lightest = load.indexOf(Math.min(...load));
    lanes[lightest].push(suite);
    load[lightest] += expected(suite);
  }
  return lanes;
}
