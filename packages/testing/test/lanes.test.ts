import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assignLanes, isTimingCritical, UNKNOWN_SUITE_SECONDS } from '../src/jest/lanes';
import { runSummary } from '../src/jest/suite-timings';
import { portRange } from '../src/ports';

describe('lanes', () => {
  const name = (suite: string) => suite;

  it('puts every timing-critical suite in lane 1 and balances the others by expected time', () => {
    const seconds = { a: 50, b: 40, c: 30, d: 20, e: 10, critical1: 30, critical2: 5 };
    const critical = (suite: string) => suite.startsWith('critical');
    const [one, two] = assignLanes(Object.keys(seconds), 2, name, critical, seconds);
    expect(one.filter(critical).sort()).toEqual(['critical1', 'critical2']);
    expect(two.filter(critical)).toEqual([]);
    const load = (lane: string[]) => lane.reduce((sum, s) => sum + seconds[s as keyof typeof seconds], 0);
    // 185 s in all: the best split leaves the lanes at most one suite's time apart.
    expect(Math.abs(load(one) - load(two))).toBeLessThanOrEqual(10);
    expect([...one, ...two].sort()).toEqual(Object.keys(seconds).sort());
  });

  it('expects a suite it has no time for to take UNKNOWN_SUITE_SECONDS, and is the same for the same input', () => {
    const suites = ['new', 'known'];
    const lanes = assignLanes(suites, 2, name, () => false, { known: UNKNOWN_SUITE_SECONDS + 1 });
    expect(lanes).toEqual([['known'], ['new']]);
    expect(assignLanes(suites, 2, name, () => false, { known: UNKNOWN_SUITE_SECONDS + 1 })).toEqual(lanes);
  });

  it('reads `@lane timing-critical <why>` from the first comment of a file, and only there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    try {
      const file = (content: string) => {
        const path = join(dir, `${Math.random()}.test.ts`);
        writeFileSync(path, content);
        return path;
      };
      expect(isTimingCritical(file('/**\n * @lane timing-critical kills billing\n */\nit("x", () => {});\n'))).toBe(
        true,
      );
      expect(isTimingCritical(file('/**\n * A suite.\n */\nit("x", () => {});\n'))).toBe(false);
      expect(isTimingCritical(file('import x from "y";\n/**\n * @lane timing-critical late\n */\n'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('summarises a run: the slowest suites first, platform starts by kind, the test count', () => {
    const lines = runSummary(
      [
        { suite: 'fast.test.ts', seconds: 1, tests: 3, failed: 0, lane: '2' },
        { suite: 'slow.test.ts', seconds: 9.5, tests: 4, failed: 1, lane: '1' },
      ],
      [
        { suite: 'slow.test.ts', seconds: 6, processes: 7, shared: false },
        { suite: 'fast.test.ts', seconds: 8, processes: 7, shared: true },
      ],
    );
    expect(lines).toEqual([
      '2 slowest suites:',
      '  slow.test.ts     9.5 s  (lane 1)',
      '  fast.test.ts     1.0 s  (lane 2)',
      'platform starts: 1 for single suites (6.0 s), 1 shared (8.0 s)',
      '2 suites, 7 tests, 1 failed',
    ]);
  });

  it('gives each lane its own ports, so two lanes never hand out the same one', () => {
    const one = portRange({ TEST_LANE: '1', TEST_LANES: '2' });
    const two = portRange({ TEST_LANE: '2', TEST_LANES: '2' });
    expect(one.highest).toBeLessThan(two.lowest);
    expect(one.highest - one.lowest).toBeGreaterThan(5000);
    expect(portRange({})).toEqual({ lowest: one.lowest, highest: two.highest });
  });
});
