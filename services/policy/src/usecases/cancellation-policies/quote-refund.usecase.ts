import { CURRENCIES, DomainError, type FieldViolation, type ProjectScope } from '@billing/platform';
import { policyApplies, refundRulesOf } from '../../domain/policy-rules';
import { quoteRefund } from '../../domain/refund-quote';
import type { PolicyDeps } from '../../policy-deps';

export interface RefundQuestion {
  /** The policy named on cancel; absent = the project+mode's default. */
  policyId?: string;
  subscriptionCreatedAt?: Date;
  periodStart?: Date;
  periodEnd?: Date;
  /** Minor units. */
  refundableAmount: number;
  currency: string;
  isTrial: boolean;
  cancelledAt?: Date;
}

export interface RefundAnswer {
  amount: number;
  /** Empty when no policy applies. */
  policyId: string;
  reason: string;
}

/** docs/api-behaviour.md §10: which policy applies to this cancel-now, and what it refunds. */
export async function quoteRefundFor(
  deps: PolicyDeps,
  scope: ProjectScope,
  question: RefundQuestion,
): Promise<RefundAnswer> {
  const { subscriptionCreatedAt, periodStart, periodEnd, cancelledAt } = checkQuestion(question);
  const named = Boolean(question.policyId);
  const policy = named ? await deps.policies.get(scope, question.policyId!) : await deps.policies.findDefault(scope);
  if (!policy || !policyApplies(policy, subscriptionCreatedAt, named)) {
    return { amount: 0, policyId: '', reason: 'no_policy' };
  }
  const quote = quoteRefund(
    refundRulesOf(policy),
    { start: periodStart, end: periodEnd, refundableAmount: question.refundableAmount, isTrial: question.isTrial },
    cancelledAt,
  );
  return { amount: quote.amount, policyId: policy.id, reason: quote.reason };
}

/** A caller bug, reported as INVALID_ARGUMENT rather than a refund computed from nonsense. */
function checkQuestion(q: RefundQuestion) {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, type = 'value_error') => violations.push({ loc: [field], msg, type });
  const times: [string, Date | undefined][] = [
    ['subscription_created_at', q.subscriptionCreatedAt],
    ['period_start', q.periodStart],
    ['period_end', q.periodEnd],
    ['cancelled_at', q.cancelledAt],
  ];
  for (const [field, value] of times) if (!value) bad(field, 'Field required', 'missing');
  if (q.periodStart && q.periodEnd && q.periodEnd < q.periodStart) {
    bad('period_end', 'period_end must not be before period_start');
  }
  if (!Number.isSafeInteger(q.refundableAmount) || q.refundableAmount < 0) {
    bad('refundable_amount', 'Input should be greater than or equal to 0', 'greater_than_equal');
  }
  if (!(CURRENCIES as readonly string[]).includes(q.currency)) {
    bad('currency', `Input should be ${CURRENCIES.join(', ')}`, 'enum');
  }
  if (violations.length) throw DomainError.invalid(violations);
  return {
    subscriptionCreatedAt: q.subscriptionCreatedAt!,
    periodStart: q.periodStart!,
    periodEnd: q.periodEnd!,
    cancelledAt: q.cancelledAt!,
  };
}
