import { DomainError, type ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../../catalog-deps';
import { sweepExpiredSessions } from '../../checkout/session-expiry';

/**
 * Catalog's side of `POST /test-clock/advance` (docs/api-behaviour.md §13): the project's checkout sessions
 * follow its test clock. Moves catalog's copy of the clock, then expires what is due by then.
 */
export async function advanceTestClock(deps: CatalogDeps, scope: ProjectScope, to: Date): Promise<number> {
  if (scope.livemode) throw new DomainError('permission_denied', 'Test clocks exist in test mode only');
  await deps.sequelize.transaction((transaction) => deps.clocks.advance(scope.projectId, to, transaction));
  return sweepExpiredSessions(deps, false);
}
