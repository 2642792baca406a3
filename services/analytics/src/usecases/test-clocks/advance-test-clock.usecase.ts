import type { AnalyticsDeps } from '../../analytics-deps';

/**
 * Analytics' side of `POST /test-clock/advance` (docs/api-behaviour.md §16.1, §25): its copy of the
 * project's test clock follows billing's to `to`, never backwards (FAILED_PRECONDITION) and with
 * no step limit, so test-mode as_of is billing's test time. Returns the new test time.
 */
export async function advanceTestClock(deps: AnalyticsDeps, projectId: string, to: Date): Promise<Date> {
  return deps.readModel.transaction((transaction) => deps.clocks.advance(projectId, to, transaction));
}
