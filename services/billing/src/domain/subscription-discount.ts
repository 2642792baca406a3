import Decimal from 'decimal.js';
import { CURRENCIES, DomainError, isUuid, toMajorUnits, type FieldViolation } from '@billing/platform';
import type { InvoiceDiscount } from './invoice-totals';

/** How long a discount runs (docs/api-behaviour.md §19). */
export const DISCOUNT_DURATIONS = ['ONCE', 'REPEATING', 'FOREVER'] as const;
export type DiscountDuration = (typeof DISCOUNT_DURATIONS)[number];

/** A coupon's terms as catalog answered them at redemption (billing.v1.CouponSnapshot). */
export interface CouponTerms {
  couponId: string;
  code: string;
  percentOff?: string;
  amountOff?: number;
  currency?: string;
  duration: string;
  durationInPeriods?: number;
}

/** A subscription's discount: the coupon's terms and how long it still runs. */
export interface SubscriptionDiscount {
  couponId: string;
  code: string;
  /** Canonical decimal text ("12.5"), or null for an amount off. */
  percentOff: string | null;
  /** Minor units of `currency`, or null for a percentage. */
  amountOff: number | null;
  currency: string | null;
  duration: DiscountDuration;
  /** Period invoices it still discounts; null for FOREVER (all). */
  periodsRemaining: number | null;
}

const PERCENT = /^\d+(\.\d{1,2})?$/;

/**
 * The discount a redeemed coupon starts (docs/api-behaviour.md §19): ONCE covers 1 invoice,
 * REPEATING the next `duration_in_periods`, FOREVER all. Counted from the first invoice the
 * subscription makes after the redemption: at creation, the first period's (or the first after
 * the trial); on an existing subscription, its next renewal. A malformed snapshot is the
 * caller's bug (INVALID_ARGUMENT); an amount off in another currency than the subscription's
 * is refused (catalog checks it too, before counting).
 */
export function discountFromCoupon(coupon: CouponTerms, subscriptionCurrency: string): SubscriptionDiscount {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, input: unknown) =>
    violations.push({ loc: ['coupon', field], msg, type: 'value_error', input });
  if (!isUuid(coupon.couponId)) bad('coupon_id', 'Input should be a valid UUID', coupon.couponId);
  if (!coupon.code) bad('code', 'Field required', coupon.code);
  const hasPercent = coupon.percentOff !== undefined && coupon.percentOff !== '';
  const hasAmount = coupon.amountOff !== undefined;
  if (hasPercent === hasAmount) bad('percent_off', 'Exactly one of percent_off and amount_off', coupon.percentOff);
  let percentOff: string | null = null;
  if (hasPercent) {
    const valid = PERCENT.test(coupon.percentOff!) && new Decimal(coupon.percentOff!).gt(0);
    if (valid && new Decimal(coupon.percentOff!).lte(100)) percentOff = new Decimal(coupon.percentOff!).toString();
    else bad('percent_off', 'Input should be 0 < x <= 100 with at most 2 decimals', coupon.percentOff);
  }
  if (hasAmount && (!Number.isSafeInteger(coupon.amountOff) || coupon.amountOff! <= 0))
    bad('amount_off', 'Input should be > 0 minor units', coupon.amountOff);
  if (hasAmount && !(CURRENCIES as readonly string[]).includes(coupon.currency ?? ''))
    bad('currency', 'Unknown currency', coupon.currency);
  if (!(DISCOUNT_DURATIONS as readonly string[]).includes(coupon.duration))
    bad('duration', `Input should be ${DISCOUNT_DURATIONS.join(', ')}`, coupon.duration);
  const periods = coupon.durationInPeriods;
  if (coupon.duration === 'REPEATING' && (!Number.isInteger(periods) || periods! < 1 || periods! > 120))
    bad('duration_in_periods', 'Input should be between 1 and 120', periods);
  if (violations.length) throw DomainError.invalid(violations, 'Invalid coupon snapshot');
  if (hasAmount && coupon.currency !== subscriptionCurrency) {
    throw new DomainError(
      'failed_precondition',
      `The coupon ${coupon.code} is for ${coupon.currency}; this subscription is billed in ${subscriptionCurrency}`,
    );
  }
  const duration = coupon.duration as DiscountDuration;
  return {
    couponId: coupon.couponId,
    code: coupon.code,
    percentOff,
    amountOff: hasAmount ? coupon.amountOff! : null,
    currency: hasAmount ? coupon.currency! : null,
    duration,
    periodsRemaining: duration === 'FOREVER' ? null : duration === 'ONCE' ? 1 : periods!,
  };
}

/** The DISCOUNT line's terms and words for the next invoice, or null when there is no discount. */
export function nextInvoiceDiscount(discount: SubscriptionDiscount | null): InvoiceDiscount | null {
  if (!discount || discount.periodsRemaining === 0) return null;
  const off =
    discount.percentOff !== null
      ? `${discount.percentOff}% off`
      : `${toMajorUnits(discount.amountOff ?? 0).toFixed(2)} ${discount.currency} off`;
  return { percentOff: discount.percentOff, amountOff: discount.amountOff, description: `${discount.code} (${off})` };
}

/**
 * The discount after an invoice was made. A period is used up only by an invoice that actually
 * got the DISCOUNT line (an invoice with nothing to discount, e.g. a free period, leaves it as
 * it was); the last one ends it (null: the subscription shows no discount any more). FOREVER
 * never ends.
 */
export function discountAfterInvoice(
  discount: SubscriptionDiscount | null,
  gotDiscountLine: boolean,
): SubscriptionDiscount | null {
  if (!discount || !gotDiscountLine || discount.periodsRemaining === null) return discount;
  const remaining = discount.periodsRemaining - 1;
  return remaining > 0 ? { ...discount, periodsRemaining: remaining } : null;
}

/** The stored columns of a subscription (migration 0014). */
export interface DiscountColumns {
  discountCouponId: string | null;
  discountCode: string | null;
  discountPercentOff: string | null;
  discountAmountOff: number | null;
  discountCurrency: string | null;
  discountDuration: DiscountDuration | null;
  discountPeriodsRemaining: number | null;
}

export function discountOf(row: DiscountColumns): SubscriptionDiscount | null {
  if (!row.discountCouponId || !row.discountCode || !row.discountDuration) return null;
  return {
    couponId: row.discountCouponId,
    code: row.discountCode,
    percentOff: row.discountPercentOff,
    amountOff: row.discountAmountOff,
    currency: row.discountCurrency,
    duration: row.discountDuration,
    periodsRemaining: row.discountPeriodsRemaining,
  };
}

export function discountColumns(discount: SubscriptionDiscount | null): DiscountColumns {
  return {
    discountCouponId: discount?.couponId ?? null,
    discountCode: discount?.code ?? null,
    discountPercentOff: discount?.percentOff ?? null,
    discountAmountOff: discount?.amountOff ?? null,
    discountCurrency: discount?.currency ?? null,
    discountDuration: discount?.duration ?? null,
    discountPeriodsRemaining: discount?.periodsRemaining ?? null,
  };
}
