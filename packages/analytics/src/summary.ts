import { ExactDecimal, roundMinorUnits } from '@billing/platform';

/** The summary's figures derived from MRR (docs/api-behaviour.md §25), amounts in minor units. */
export interface MrrSummary {
  mrr: number;
  /** 12 x mrr. */
  arr: number;
  /** Customers with a contributing subscription. */
  customers: number;
  /** mrr / customers, rounded like money (half away from zero); 0 when there are none. */
  arpu: number;
}

/** arr and arpu from the MRR and the customers who contribute to it (docs/api-behaviour.md §25). */
export function summariseMrr(mrr: number, customers: number): MrrSummary {
  assertCount('mrr', mrr);
  assertCount('customers', customers);
  const arpu = customers === 0 ? 0 : roundMinorUnits(new ExactDecimal(mrr).div(customers));
  return { mrr, arr: 12 * mrr, customers, arpu };
}

/** What the 30-day churn rate is computed from: subscription counts. */
export interface ChurnCounts {
  /** Subscriptions that stopped contributing in the last 30 days. */
  churned: number;
  /** Subscriptions contributing 30 days ago. */
  contributingAtStart: number;
  /** Subscriptions that contributed for the first time in the last 30 days. */
  new: number;
}

const CHURN_RATE_DECIMALS = 4;

/**
 * subscriber_churn_rate_30d (docs/api-behaviour.md §25): churned / (contributing 30 days ago +
 * new in those 30 days), 4 decimals rounded half away from zero, 0 when the denominator is 0.
 * A number 0..1: a reactivated subscription that churns again is in the numerator but not the
 * denominator, so the rate is capped at 1 rather than reported above it.
 */
export function subscriberChurnRate30d(counts: ChurnCounts): number {
  assertCount('churned', counts.churned);
  assertCount('contributingAtStart', counts.contributingAtStart);
  assertCount('new', counts.new);
  const denominator = counts.contributingAtStart + counts.new;
  if (denominator === 0) return 0;
  const rate = ExactDecimal.min(1, new ExactDecimal(counts.churned).div(denominator));
  return rate.toDecimalPlaces(CHURN_RATE_DECIMALS, ExactDecimal.ROUND_HALF_UP).toNumber();
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} ${value} is not a count`);
}
