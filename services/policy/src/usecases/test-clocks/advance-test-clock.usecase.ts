import { DomainError, type ProjectScope } from '@billing/platform';
import type { PolicyDeps } from '../../policy-deps';

/**
 * Policy's side of `POST /test-clock/advance` (docs/api-behaviour.md §13, 16.1): test-mode policies get
 * test-clock creation times, so "created after the policy" compares like with like against the
 * subscription times billing sends to QuoteRefund.
 */
export async function advanceTestClock(deps: PolicyDeps, scope: ProjectScope, to: Date): Promise<void> {
  if (scope.livemode) throw new DomainError('permission_denied', 'Test clocks exist in test mode only');
  await deps.sequelize.transaction((transaction) => deps.clocks.advance(scope.projectId, to, transaction));
}
