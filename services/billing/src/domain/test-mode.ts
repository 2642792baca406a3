import { DomainError, type ProjectScope } from '@billing/platform';

/** Test clocks, and what moves them, exist in test mode only (docs/api-behaviour.md §13). */
export function assertTestMode(scope: ProjectScope): void {
  if (scope.livemode) throw new DomainError('permission_denied', 'Test clocks exist in test mode only');
}
