import { ExactDecimal as Exact, roundMinorUnits } from '@billing/platform';

export const REFUND_TYPES = ['NONE', 'FULL', 'PARTIAL'] as const;
export type RefundType = (typeof REFUND_TYPES)[number];

/** The refund rules of a cancellation policy (docs/api-behaviour.md §10). Money in minor units. */
export interface RefundRules {
  refundType: RefundType;
  /** 0..100, may have decimals; used by PARTIAL only. */
  refundPercentage: number | null;
  /** 0 = no time limit. */
  refundWindowDays: number;
  prorateRefund: boolean;
  cancellationFee: number;
}

/** The subscription's current period as billing knows it. */
export interface PaidPeriod {
  start: Date;
  end: Date;
  /** What the period's invoice collected, minus what was already refunded (minor units). */
  refundableAmount: number;
  /** A trial period was not paid for: it refunds nothing. */
  isTrial: boolean;
}

/** Why a quote came to what it did, for the preview and for support. */
export type RefundReason = 'computed' | 'no_paid_amount' | 'trial' | 'outside_window' | 'no_refund_policy';

export interface RefundQuote {
  amount: number;
  reason: RefundReason;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The refund on cancelling now (docs/api-behaviour.md §10): outside the window (now >= start + window days,
 * when the window is > 0) nothing; base = P (FULL), P x percentage / 100 (PARTIAL), 0 (NONE);
 * prorated by the unused share of the period when the policy says so; minus the fee, never below
 * 0, rounded once to whole minor units. A trial period refunds nothing.
 */
export function quoteRefund(rules: RefundRules, period: PaidPeriod, cancelledAt: Date): RefundQuote {
  if (period.isTrial) return { amount: 0, reason: 'trial' };
  if (period.refundableAmount <= 0) return { amount: 0, reason: 'no_paid_amount' };
  if (rules.refundType === 'NONE') return { amount: 0, reason: 'no_refund_policy' };
  if (rules.refundWindowDays > 0 && cancelledAt.getTime() >= period.start.getTime() + rules.refundWindowDays * DAY_MS) {
    return { amount: 0, reason: 'outside_window' };
  }
  let base = new Exact(period.refundableAmount);
  if (rules.refundType === 'PARTIAL') base = base.times(rules.refundPercentage ?? 0).dividedBy(100);
  if (rules.prorateRefund) {
    const length = period.end.getTime() - period.start.getTime();
    const unused = Math.min(Math.max(period.end.getTime() - cancelledAt.getTime(), 0), length);
    base = length > 0 ? base.times(unused).dividedBy(length) : new Exact(0);
  }
  const refund = Exact.max(0, base.minus(rules.cancellationFee));
  return { amount: roundMinorUnits(refund), reason: 'computed' };
}
