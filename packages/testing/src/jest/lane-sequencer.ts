import type { Test } from '@jest/test-result';
import TestSequencer, { type ShardOptions } from '@jest/test-sequencer';
import { assignLanes, isTimingCritical, UNKNOWN_SUITE_SECONDS } from './lanes';
import { committedTimings, suiteName } from './suite-timings';

/** jest's testSequencer: lanes for `--shard`, slowest suites first within each (lanes.ts). */
class LaneSequencer extends TestSequencer {
  private readonly seconds = committedTimings();

  override shard(tests: Test[], { shardIndex, shardCount }: ShardOptions): Test[] {
    const lanes = assignLanes(
      tests,
      shardCount,
      (test) => suiteName(test.path),
      (test) => isTimingCritical(test.path),
      this.seconds,
    );
    return lanes[shardIndex - 1];
  }

  override sort(tests: Test[]): Test[] {
    const expected = (test: Test) => this.seconds[suiteName(test.path)] ?? UNKNOWN_SUITE_SECONDS;
    return [...tests].sort((a, b) => expected(b) - expected(a) || a.path.localeCompare(b.path));
  }
}

export = LaneSequencer;
