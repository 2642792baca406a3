import Decimal from 'decimal.js';
import { CURRENCIES, DomainError, isUuid, type FieldViolation } from '@billing/platform';

/** How long a discount runs (docs/api-behaviour.md §19). */
export const COUPON_DURATIONS = ['ONCE', 'REPEATING', 'FOREVER'] as const;
export type CouponDuration = (typeof COUPON_DURATIONS)[number];

export const MAX_DURATION_IN_PERIODS = 120;
const CODE = /^[A-Za-z0-9_-]{3,40}$/;
const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/** Codes are compared and stored upper case: "welcome25" redeems WELCOME25. */
export const normalizeCouponCode = (raw: string): string => raw.trim().toUpperCase();

export interface CouponDraft {
  code: string;
  name?: string;
  /** Exact decimal text as the client sent it ("25", "12.5"). */
  percentOff?: string;
  /** Minor units. */
  amountOff?: number;
  currency?: string;
  duration: string;
  durationInPeriods?: number;
  maxRedemptions?: number;
  redeemBy?: Date;
  planIds: string[];
}

export interface ValidCoupon {
  code: string;
  name: string | null;
  /** Canonical decimal text: no exponent, no trailing zeros ("12.5"). */
  percentOff: string | null;
  amountOff: number | null;
  currency: (typeof CURRENCIES)[number] | null;
  duration: CouponDuration;
  durationInPeriods: number | null;
  maxRedemptions: number | null;
  redeemBy: Date | null;
  planIds: string[];
}

/** percent_off: 0 < x <= 100 with at most 2 decimals, read as an exact decimal (never a float). */
export function parsePercentOff(text: string): string | null {
  if (!DECIMAL_TEXT.test(text)) return null;
  const value = new Decimal(text);
  if (value.decimalPlaces() > 2 || value.lte(0) || value.gt(100)) return null;
  return value.toString();
}

/**
 * Every rule of a new coupon (docs/api-behaviour.md §19); all violations at once, as a 422.
 * The gateway checks types first; this is the authority for any caller of the gRPC API.
 * `now` is the project's clock: a redeem_by already passed would make a coupon nobody can use.
 */
export function validateNewCoupon(draft: CouponDraft, now: Date): ValidCoupon {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, input: unknown, type = 'value_error') =>
    violations.push({ loc: ['body', field], msg, type, input });

  if (!CODE.test(draft.code.trim()))
    bad('code', 'Input should be 3 to 40 characters of A-Z, 0-9, _ and -', draft.code, 'string_pattern_mismatch');
  const name = draft.name?.trim() || null;
  if (name !== null && name.length > 200) bad('name', 'String should have at most 200 characters', draft.name);

  const hasPercent = draft.percentOff !== undefined;
  const hasAmount = draft.amountOff !== undefined;
  if (hasPercent === hasAmount) {
    bad(
      hasPercent ? 'amount_off' : 'percent_off',
      'Exactly one of percent_off and amount_off is required',
      hasPercent ? draft.amountOff : undefined,
      hasPercent ? 'value_error' : 'missing',
    );
  }
  let percentOff: string | null = null;
  if (hasPercent) {
    percentOff = parsePercentOff(draft.percentOff!);
    if (percentOff === null)
      bad('percent_off', 'Input should be greater than 0 and at most 100, with at most 2 decimals', draft.percentOff);
  }
  if (hasAmount && (!Number.isSafeInteger(draft.amountOff) || draft.amountOff! <= 0))
    bad('amount_off', 'Input should be greater than 0', draft.amountOff);
  const currency = draft.currency ? draft.currency.toUpperCase() : null;
  if (hasAmount && currency === null) bad('currency', 'Field required with amount_off', undefined, 'missing');
  if (currency !== null && !(CURRENCIES as readonly string[]).includes(currency))
    bad('currency', `Input should be ${CURRENCIES.join(', ')}`, draft.currency, 'enum');
  if (!hasAmount && currency !== null) bad('currency', 'currency is only for amount_off', draft.currency);

  const duration = draft.duration.toUpperCase();
  if (!(COUPON_DURATIONS as readonly string[]).includes(duration))
    bad('duration', `Input should be ${COUPON_DURATIONS.join(', ')}`, draft.duration, 'enum');
  if (duration === 'REPEATING') {
    const n = draft.durationInPeriods;
    if (n === undefined) bad('duration_in_periods', 'Field required with duration REPEATING', undefined, 'missing');
    else if (!Number.isInteger(n) || n < 1 || n > MAX_DURATION_IN_PERIODS)
      bad('duration_in_periods', `Input should be between 1 and ${MAX_DURATION_IN_PERIODS}`, n);
  } else if (draft.durationInPeriods !== undefined) {
    bad('duration_in_periods', 'duration_in_periods is only for duration REPEATING', draft.durationInPeriods);
  }

  const max = draft.maxRedemptions;
  if (max !== undefined && (!Number.isInteger(max) || max < 1))
    bad('max_redemptions', 'Input should be greater than or equal to 1', max, 'greater_than_equal');
  if (draft.redeemBy && draft.redeemBy.getTime() <= now.getTime())
    bad('redeem_by', 'Input should be in the future', draft.redeemBy.toISOString());
  draft.planIds.forEach((id, index) => {
    if (!isUuid(id))
      violations.push({
        loc: ['body', 'plan_ids', index],
        msg: 'Input should be a valid UUID',
        type: 'uuid_parsing',
        input: id,
      });
  });
  if (violations.length) throw DomainError.invalid(violations);
  return {
    code: normalizeCouponCode(draft.code),
    name,
    percentOff,
    amountOff: hasAmount ? draft.amountOff! : null,
    currency: currency as ValidCoupon['currency'],
    duration: duration as CouponDuration,
    durationInPeriods: duration === 'REPEATING' ? draft.durationInPeriods! : null,
    maxRedemptions: max ?? null,
    redeemBy: draft.redeemBy ?? null,
    planIds: [...new Set(draft.planIds.map((id) => id.toLowerCase()))],
  };
}

/** What a redemption is checked against: the coupon as stored. */
export interface RedeemableCoupon {
  code: string;
  isActive: boolean;
  redeemBy: Date | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
  planIds: string[];
  amountOff: number | null;
  currency: string | null;
}

/** Why a code cannot be redeemed (docs/api-behaviour.md §19): each has its own 400 detail. */
export type RedemptionRefusal =
  'unknown' | 'inactive' | 'expired' | 'exhausted' | 'plan_excluded' | 'currency_mismatch';

/**
 * The first rule a redemption breaks, or null. `now` is the project's clock; redeem_by is the last
 * instant the code may be redeemed. `exhausted` here is only the early answer: the count itself
 * rises in one conditional UPDATE, which is what holds under concurrency.
 */
export function redemptionRefusal(
  coupon: RedeemableCoupon,
  target: { planId: string; currency: string; now: Date },
): RedemptionRefusal | null {
  if (!coupon.isActive) return 'inactive';
  if (coupon.redeemBy && target.now.getTime() > coupon.redeemBy.getTime()) return 'expired';
  if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions) return 'exhausted';
  if (coupon.planIds.length > 0 && !coupon.planIds.includes(target.planId.toLowerCase())) return 'plan_excluded';
  if (coupon.amountOff !== null && coupon.currency !== target.currency.toUpperCase()) return 'currency_mismatch';
  return null;
}

/** The 400 a refused redemption answers, in words a customer on the hosted page understands too. */
export function redemptionRefused(
  reason: RedemptionRefusal,
  code: string,
  coupon?: Pick<RedeemableCoupon, 'redeemBy' | 'maxRedemptions' | 'currency'>,
  target?: { currency: string },
): DomainError {
  const shown = normalizeCouponCode(code);
  const detail: Record<RedemptionRefusal, string> = {
    unknown: `The coupon code ${shown} does not exist`,
    inactive: `The coupon ${shown} is no longer active`,
    expired: `The coupon ${shown} expired: it could be redeemed until ${coupon?.redeemBy?.toISOString() ?? 'an earlier date'}`,
    exhausted: `The coupon ${shown} has been redeemed the maximum number of times (${coupon?.maxRedemptions ?? 0})`,
    plan_excluded: `The coupon ${shown} does not apply to this plan`,
    currency_mismatch: `The coupon ${shown} is for ${coupon?.currency ?? 'another currency'}; this plan is billed in ${target?.currency ?? 'another currency'}`,
  };
  return new DomainError('failed_precondition', detail[reason]);
}

/**
 * A coupon's terms at its redemption: what a checkout session prices with and a subscription's
 * discount keeps, whatever later happens to the coupon (docs/api-behaviour.md §19).
 */
export interface CouponSnapshot {
  couponId: string;
  code: string;
  percentOff: string | null;
  amountOff: number | null;
  currency: string | null;
  duration: CouponDuration;
  durationInPeriods: number | null;
}

export const snapshotOf = (coupon: {
  id: string;
  code: string;
  percentOff: string | null;
  amountOff: number | null;
  currency: string | null;
  duration: CouponDuration;
  durationInPeriods: number | null;
}): CouponSnapshot => ({
  couponId: coupon.id,
  code: coupon.code,
  percentOff: coupon.percentOff,
  amountOff: coupon.amountOff,
  currency: coupon.currency,
  duration: coupon.duration,
  durationInPeriods: coupon.durationInPeriods,
});
