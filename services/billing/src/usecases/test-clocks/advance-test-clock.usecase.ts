import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, type ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { assertTestMode } from '../../domain/test-mode';
import { runDueBilling } from '../../scheduling/due-billing-run';
import { dueTestWorkCount } from '../../scheduling/billing-pass';

/** How long an advance waits for charges other replicas have in flight before answering. */
const IN_FLIGHT_WAIT_MS = 30_000;

/**
 * Moves the project's test clock to `to` (backwards, or more than 2 years -> 400) and, before
 * answering, processes everything of that project due by then: period ends, trial ends, notices,
 * dunning retries, each subscription's steps in time order.
 */
export async function advanceTestClock(
  deps: BillingDeps,
  scope: ProjectScope,
  to: Date,
  settleAfterMs: number,
): Promise<Date> {
  assertTestMode(scope);
  if (Number.isNaN(to.getTime())) {
    throw DomainError.invalid([
      { loc: ['body', 'to'], msg: 'Input should be a valid datetime', type: 'datetime_parsing' },
    ]);
  }
  const now = await deps.sequelize.transaction((transaction) =>
    deps.clocks.advance(scope.projectId, to, transaction, { limitStep: true }),
  );
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    await runDueBilling(deps, { projectId: scope.projectId, livemode: false, settleAfterMs });
    // Rows another replica (or this one's scheduler) holds are still due until it commits.
    if ((await dueTestWorkCount(deps, scope.projectId)) === 0) break;
    if (Date.now() > deadline) {
      deps.logger.warn({ project_id: scope.projectId }, 'test clock advanced with work still in flight');
      break;
    }
    await sleep(20);
  }
  return now;
}
