import type { ProjectScope } from '@billing/platform';
import type { CancellationPolicyModel } from '../../db/models/cancellation-policy.model';
import { validatePolicy, type PolicyDraft } from '../../domain/policy-rules';
import type { PolicyDeps } from '../../policy-deps';

/** The fields a PATCH sent; absent ones keep their stored value. */
export type PolicyChanges = Partial<PolicyDraft>;

export async function updatePolicy(
  deps: PolicyDeps,
  scope: ProjectScope,
  policyId: string,
  changes: PolicyChanges,
): Promise<CancellationPolicyModel> {
  // Outside the transaction: 403/404 for ids that are not this project's and mode's.
  await deps.policies.get(scope, policyId);
  return deps.sequelize.transaction(async (transaction) => {
    // Default lock before the row lock, the order every writer takes them in.
    if (changes.isDefault) await deps.policies.lockDefault(scope, transaction);
    const stored = await deps.policies.lockForUpdate(policyId, transaction);
    const policy = validatePolicy({
      name: changes.name ?? stored.name,
      refundType: changes.refundType ?? stored.refundType,
      refundPercentage: changes.refundPercentage ?? stored.refundPercentage,
      refundWindowDays: changes.refundWindowDays ?? stored.refundWindowDays,
      prorateRefund: changes.prorateRefund ?? stored.prorateRefund,
      cancellationFee: changes.cancellationFee ?? stored.cancellationFee,
      applyToExisting: changes.applyToExisting ?? stored.applyToExisting,
      isDefault: changes.isDefault ?? stored.isDefault,
    });
    const now = await deps.clocks.now(scope, transaction);
    if (policy.isDefault && !stored.isDefault) await deps.policies.unsetDefault(scope, policyId, now, transaction);
    return deps.policies.save(stored, { ...policy, updatedAt: now }, transaction);
  });
}
