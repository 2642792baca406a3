import {
  CURRENCIES,
  DomainError,
  isUuid,
  toMajorUnits,
  type DiscountTerms,
  type FieldViolation,
} from '@billing/platform';
import { checkoutChargeAmount, type VerifiedTransaction } from '@billing/payments';
import { isInterval, periodAt, trialWindow, type BillingPeriod, type Interval } from './periods';
import type { SubscriptionStatus } from './subscription-status';

/** The plan as catalog sold it; billing keeps this copy on the subscription. */
export interface PlanSnapshot {
  planId: string;
  name: string;
  amount: number;
  currency: string;
  interval: Interval;
  intervalCount: number;
  trialPeriodDays: number;
  usageUnitAmount: number | null;
}

/** Checks what a caller says was sold; a bad snapshot is the caller's bug, never a charge. */
export function validatePlanSnapshot(
  plan: Omit<PlanSnapshot, 'interval' | 'usageUnitAmount'> & { interval: string; usageUnitAmount?: number },
): PlanSnapshot {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, input: unknown) =>
    violations.push({ loc: ['plan', field], msg, type: 'value_error', input });
  if (!isUuid(plan.planId)) bad('plan_id', 'Input should be a valid UUID', plan.planId);
  if (!plan.name) bad('name', 'Field required', plan.name);
  if (!Number.isSafeInteger(plan.amount) || plan.amount < 0)
    bad('amount', 'Input should be >= 0 minor units', plan.amount);
  if (!(CURRENCIES as readonly string[]).includes(plan.currency)) bad('currency', 'Unknown currency', plan.currency);
  if (!isInterval(plan.interval)) bad('interval', 'Unknown interval', plan.interval);
  if (!Number.isInteger(plan.intervalCount) || plan.intervalCount < 1) {
    bad('interval_count', 'Input should be >= 1', plan.intervalCount);
  }
  if (!Number.isInteger(plan.trialPeriodDays) || plan.trialPeriodDays < 0) {
    bad('trial_period_days', 'Input should be >= 0', plan.trialPeriodDays);
  }
  if (violations.length) throw DomainError.invalid(violations, 'Invalid plan snapshot');
  return { ...plan, interval: plan.interval as Interval, usageUnitAmount: plan.usageUnitAmount ?? null };
}

/**
 * The hosted page starts every checkout transaction with its session's id in the provider's
 * metadata: a transaction naming another session is not this session's payment, whatever
 * reference a caller passes. `required`: a transaction naming no session is refused too (a
 * refund is only ever made of a payment provably this session's).
 */
export function assertPaymentOfSession(
  transaction: VerifiedTransaction,
  checkoutSessionId: string,
  options: { required: boolean } = { required: false },
): void {
  const named = transaction.metadata.checkout_session_id;
  if (named === checkoutSessionId || (named === undefined && !options.required)) return;
  throw new DomainError('failed_precondition', 'This payment belongs to another checkout session');
}

/**
 * A checkout completes only on the provider's word that exactly the expected charge succeeded:
 * the plan's price less the session's discount (docs/api-behaviour.md §19), or the verification
 * charge for a trial or a free first period (the rule the hosted page used to start the
 * transaction). Anything else is `payment_required` with the provider's own words, so the payer
 * learns why.
 */
export function assertCheckoutPaid(
  transaction: VerifiedTransaction | null,
  plan: PlanSnapshot,
  discount: DiscountTerms | null = null,
): VerifiedTransaction {
  if (!transaction) throw new DomainError('payment_required', 'The payment provider does not know this transaction');
  if (transaction.status !== 'success') {
    throw new DomainError('payment_required', transaction.gatewayResponse || `Payment ${transaction.status}`);
  }
  const expected = checkoutChargeAmount(plan, discount);
  if (transaction.amount !== expected || transaction.currency.toUpperCase() !== plan.currency) {
    throw new DomainError(
      'payment_required',
      `The payment was ${toMajorUnits(transaction.amount)} ${transaction.currency}, ` +
        `expected ${toMajorUnits(expected)} ${plan.currency}`,
    );
  }
  return transaction;
}

export interface SubscriptionStart {
  status: SubscriptionStatus;
  billingAnchor: Date;
  trialEnd: Date | null;
  /** The current period: the trial window during a trial (docs/api-behaviour.md §16.6). */
  period: BillingPeriod;
}

/**
 * How a subscription bought at `now` starts: a trial runs whole days and paid periods are then
 * anchored on its end (docs/api-behaviour.md §16.19); without a trial the first paid period starts now.
 */
export function subscriptionStart(plan: PlanSnapshot, now: Date): SubscriptionStart {
  if (plan.trialPeriodDays > 0) {
    const trial = trialWindow(now, plan.trialPeriodDays);
    return { status: 'TRIALING', billingAnchor: trial.end, trialEnd: trial.end, period: trial };
  }
  return {
    status: 'ACTIVE',
    billingAnchor: now,
    trialEnd: null,
    period: periodAt(now, plan.interval, plan.intervalCount, 0),
  };
}

/** What a new subscription takes from its plan and its start; the rest is the caller's. */
export function subscriptionTerms(plan: PlanSnapshot, start: SubscriptionStart) {
  return {
    planId: plan.planId,
    planName: plan.name,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    intervalCount: plan.intervalCount,
    usageUnitAmount: plan.usageUnitAmount,
    status: start.status,
    billingAnchor: start.billingAnchor,
    trialEnd: start.trialEnd,
    currentPeriodStart: start.period.start,
    currentPeriodEnd: start.period.end,
  };
}

/** What the ledger row of a successful provider payment takes from the provider's verification. */
export function verifiedPaymentFields(verified: VerifiedTransaction) {
  return {
    reference: verified.reference,
    amount: verified.amount,
    currency: verified.currency.toUpperCase(),
    status: 'SUCCEEDED' as const,
    gatewayResponse: verified.gatewayResponse || null,
    providerResponse: { status: verified.status, paid_at: verified.paidAt?.toISOString() ?? null },
  };
}
