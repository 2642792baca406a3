import type { BillingDeps } from '../../billing-deps';
import { runDueBilling, type SchedulerRunOptions } from '../../scheduling/due-billing-run';

/**
 * The scheduler's run, once a second for each mode (server.ts): period ends renewed, trials ended,
 * notices sent, dunning retries charged, and charges a dead process left PENDING settled, until
 * nothing more is due. A test clock's advance runs the same machinery for its project only
 * (advance-test-clock.usecase.ts). Returns how much work it did.
 */
export function renewDueSubscriptions(deps: BillingDeps, options: SchedulerRunOptions): Promise<number> {
  return runDueBilling(deps, options);
}
