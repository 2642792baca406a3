import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import type { CancellationPolicyModel } from '../../db/models/cancellation-policy.model';
import { validatePolicy, type PolicyDraft } from '../../domain/policy-rules';
import type { PolicyDeps } from '../../policy-deps';

export async function createPolicy(
  deps: PolicyDeps,
  scope: ProjectScope,
  draft: PolicyDraft,
): Promise<CancellationPolicyModel> {
  const policy = validatePolicy(draft);
  const id = randomUUID();
  return deps.sequelize.transaction(async (transaction) => {
    if (policy.isDefault) await deps.policies.lockDefault(scope, transaction);
    const now = await deps.clocks.now(scope, transaction);
    if (policy.isDefault) await deps.policies.unsetDefault(scope, id, now, transaction);
    return deps.policies.create(
      {
        id,
        projectId: scope.projectId,
        livemode: scope.livemode,
        ...policy,
        createdAt: now,
        updatedAt: now,
      },
      transaction,
    );
  });
}
