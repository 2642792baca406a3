import Decimal from 'decimal.js';
import { DomainError, requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { policyV1 } from '@billing/proto';
import type { CancellationPolicyModel } from '../db/models/cancellation-policy.model';
import { advanceTestClock } from '../usecases/test-clocks/advance-test-clock.usecase';
import { createPolicy } from '../usecases/cancellation-policies/create-policy.usecase';
import { deletePolicy } from '../usecases/cancellation-policies/delete-policy.usecase';
import type { PolicyDeps } from '../policy-deps';
import { quoteRefundFor } from '../usecases/cancellation-policies/quote-refund.usecase';
import { updatePolicy } from '../usecases/cancellation-policies/update-policy.usecase';

const toPolicy = (p: CancellationPolicyModel): policyV1.CancellationPolicy => ({
  id: p.id,
  projectId: p.projectId,
  livemode: p.livemode,
  name: p.name,
  refundType: p.refundType,
  // pg gives NUMERIC(5,2) as "50.00"; callers get the canonical "50".
  refundPercentage: p.refundPercentage === null ? undefined : new Decimal(p.refundPercentage).toFixed(),
  refundWindowDays: p.refundWindowDays,
  prorateRefund: p.prorateRefund,
  cancellationFee: p.cancellationFee,
  applyToExisting: p.applyToExisting,
  isDefault: p.isDefault,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** Thin: proto request -> use case -> proto response. */
export function policyHandlers(deps: PolicyDeps, logger: Logger): policyV1.PolicyServiceServer {
  const handlers: UnaryHandlers<policyV1.PolicyServiceServer> = {
    async createPolicy(req) {
      const policy = await createPolicy(deps, requireScope(req.scope), {
        name: req.name,
        refundType: req.refundType,
        refundPercentage: req.refundPercentage,
        refundWindowDays: req.refundWindowDays,
        prorateRefund: req.prorateRefund,
        cancellationFee: req.cancellationFee,
        applyToExisting: req.applyToExisting,
        isDefault: req.isDefault,
      });
      return { policy: toPolicy(policy) };
    },
    async listPolicies(req) {
      const policies = await deps.policies.list(requireScope(req.scope), {
        limit: req.page?.limit,
        startingAfter: req.page?.startingAfter || undefined,
      });
      return { policies: policies.map(toPolicy) };
    },
    async getPolicy(req) {
      return { policy: toPolicy(await deps.policies.get(requireScope(req.scope), req.policyId)) };
    },
    async updatePolicy(req) {
      const policy = await updatePolicy(deps, requireScope(req.scope), req.policyId, {
        name: req.name,
        refundType: req.refundType,
        refundPercentage: req.refundPercentage,
        refundWindowDays: req.refundWindowDays,
        prorateRefund: req.prorateRefund,
        cancellationFee: req.cancellationFee,
        applyToExisting: req.applyToExisting,
        isDefault: req.isDefault,
      });
      return { policy: toPolicy(policy) };
    },
    async deletePolicy(req) {
      await deletePolicy(deps, requireScope(req.scope), req.policyId);
      return {};
    },
    async quoteRefund(req) {
      return quoteRefundFor(deps, requireScope(req.scope), {
        policyId: req.policyId || undefined,
        subscriptionCreatedAt: req.subscriptionCreatedAt,
        periodStart: req.periodStart,
        periodEnd: req.periodEnd,
        refundableAmount: req.refundableAmount,
        currency: req.currency,
        isTrial: req.isTrial,
        cancelledAt: req.cancelledAt,
      });
    },
    async advanceTestClock(req) {
      if (!req.to) throw new DomainError('invalid_argument', 'to is required');
      await advanceTestClock(deps, requireScope(req.scope), req.to);
      return {};
    },
  };
  return unaryService(handlers, logger);
}
