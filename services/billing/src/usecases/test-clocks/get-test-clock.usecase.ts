import type { ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { assertTestMode } from '../../domain/test-mode';

/** GET /test-helpers/clock: the project's test clock, now. */
export async function getTestClock(deps: BillingDeps, scope: ProjectScope): Promise<Date> {
  assertTestMode(scope);
  return deps.clocks.now(scope);
}
