import {
  discountAmount,
  netOfInclusiveTax,
  shareOfAmount,
  type DiscountTerms,
  type InvoiceTax,
} from '@billing/platform';

/** A subscription's statuses (docs/api-behaviour.md §8). */
export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'PAST_DUE', 'CANCELLED', 'PAUSED', 'TRIALING', 'EXPIRED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A plan's billing intervals (docs/api-behaviour.md §4). */
export const PLAN_INTERVALS = ['daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually'] as const;
export type PlanInterval = (typeof PLAN_INTERVALS)[number];

/** How long a coupon applies (docs/api-behaviour.md §19). */
export const COUPON_DURATIONS = ['ONCE', 'REPEATING', 'FOREVER'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

/** The statuses that contribute to MRR (docs/api-behaviour.md §25): a paying subscription, even one late. */
export const CONTRIBUTING_STATUSES: readonly SubscriptionStatus[] = ['ACTIVE', 'PAST_DUE'];

export const contributesToMrr = (status: SubscriptionStatus): boolean => CONTRIBUTING_STATUSES.includes(status);

/**
 * One interval as a fraction of a month, numerator / denominator, kept exact (365/12 is not a
 * finite decimal): docs/api-behaviour.md §25.
 */
const MONTHS_PER_INTERVAL: Record<PlanInterval, { numerator: number; denominator: number }> = {
  daily: { numerator: 365, denominator: 12 },
  weekly: { numerator: 52, denominator: 12 },
  monthly: { numerator: 1, denominator: 1 },
  quarterly: { numerator: 1, denominator: 3 },
  biannually: { numerator: 1, denominator: 6 },
  annually: { numerator: 1, denominator: 12 },
};

/** What MRR needs to know of a subscription (docs/api-behaviour.md §25). */
export interface MrrSubscription {
  status: SubscriptionStatus;
  /**
   * The plan's recurring amount in integer minor units (>= 0) per `intervalCount` x `interval`.
   * Metered usage is never part of it: MRR counts the recurring price only.
   */
  plan: { amount: number; interval: PlanInterval; intervalCount: number };
  /** The coupon the subscription carries, or null; only a FOREVER one reduces MRR. */
  coupon: (DiscountTerms & { duration: CouponDuration }) | null;
  /** The subscription's tax rates and its customer's exemption, as its invoices apply them (§21). */
  tax: InvoiceTax;
}

/**
 * A subscription's MRR in integer minor units (docs/api-behaviour.md §25): 0 unless ACTIVE or
 * PAST_DUE; otherwise what one of its recurring invoices would bill excluding tax (the plan's
 * amount, less a FOREVER coupon as §19 applies it, less the inclusive taxes as §21 takes them
 * out; the platform's own rules, so MRR and invoices never disagree), normalised to a month and
 * divided by interval_count with exact decimals, then rounded once, half away from zero.
 * The coupon and the tax are applied to the invoice's amount, not to the monthly figure: an
 * amount_off comes off each invoice, so 10.00 off an annual plan is 10.00 a year, not a month.
 */
export function monthlyRecurringRevenue(subscription: MrrSubscription): number {
  const { amount, interval, intervalCount } = subscription.plan;
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`plan amount ${amount} is not minor units`);
  if (!Number.isSafeInteger(intervalCount) || intervalCount < 1) {
    throw new RangeError(`interval_count ${intervalCount} is not a positive integer`);
  }
  if (!contributesToMrr(subscription.status)) return 0;
  const coupon = subscription.coupon;
  const discount = coupon !== null && coupon.duration === 'FOREVER' ? discountAmount(amount, coupon) : 0;
  const excludingTax = netOfInclusiveTax(amount - discount, subscription.tax);
  const { numerator, denominator } = MONTHS_PER_INTERVAL[interval];
  return shareOfAmount(excludingTax, numerator, denominator * intervalCount);
}
