import { DomainError, type ProjectScope } from '@billing/platform';
import type { PolicyDeps } from '../../policy-deps';

/**
 * Removes the policy for good. Refunds already issued keep their amounts and the policy id
 * they name; a deleted default leaves the project+mode without one (cancels then refund nothing).
 */
export async function deletePolicy(deps: PolicyDeps, scope: ProjectScope, policyId: string): Promise<void> {
  await deps.policies.get(scope, policyId);
  if (!(await deps.policies.delete(policyId))) throw new DomainError('not_found', 'Cancellation policy not found');
}
