import Decimal from 'decimal.js';
import { ExactDecimal } from './quantity';

/** Currencies the platform bills in (docs/api-behaviour.md §1); all have two minor digits. */
export const CURRENCIES = ['NGN', 'USD', 'GHS', 'ZAR', 'KES'] as const;
export type Currency = (typeof CURRENCIES)[number];
export const DEFAULT_CURRENCY: Currency = 'NGN';
const MINOR_DIGITS = 2;

/** True when a JSON money value has at most two decimals (the limit of docs/api-behaviour.md §1). */
export function hasAtMostMinorDigits(amount: number): boolean {
  return Number.isFinite(amount) && new Decimal(String(amount)).decimalPlaces() <= MINOR_DIGITS;
}

/**
 * JSON major units (5000.5) -> integer minor units (500050). Goes through the number's shortest
 * decimal text, so 0.1 + 0.2 style binary noise never reaches an amount.
 */
export function toMinorUnits(amount: number): number {
  if (!hasAtMostMinorDigits(amount)) throw new RangeError(`amount ${amount} has more than ${MINOR_DIGITS} decimals`);
  const minor = new Decimal(String(amount)).times(10 ** MINOR_DIGITS);
  if (!minor.abs().lte(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount ${amount} is too large`);
  return minor.toNumber();
}

/** Integer minor units -> JSON major units. */
export function toMajorUnits(minor: number | bigint | string): number {
  return new Decimal(minor.toString()).div(10 ** MINOR_DIGITS).toNumber();
}

/**
 * An amount that is not a safe integer of minor units: it cannot be stored or charged exactly.
 * Deterministic for its inputs, so a caller that meets it will meet it again on a retry.
 */
export class AmountOutOfRangeError extends RangeError {
  constructor(amount: string) {
    super(`amount ${amount} is out of range`);
    this.name = 'AmountOutOfRangeError';
  }
}

/**
 * The platform's one rounding rule for money: an exact decimal amount of minor units to whole
 * minor units, half away from zero (docs/api-behaviour.md §1). Every computed amount (a
 * discount, a proration, a refund's share) goes through here, once.
 */
export function roundMinorUnits(amount: Decimal.Value): number {
  const rounded = new ExactDecimal(amount).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  const result = rounded.toNumber();
  if (!Number.isSafeInteger(result)) throw new AmountOutOfRangeError(rounded.toFixed());
  return result === 0 ? 0 : result;
}

/** amount x part / whole, rounded once (roundMinorUnits): a share of an amount. */
export function shareOfAmount(amount: number, part: Decimal.Value, whole: Decimal.Value): number {
  if (new ExactDecimal(whole).isZero()) throw new RangeError('a share of a whole of 0');
  return roundMinorUnits(new ExactDecimal(amount).times(part).div(whole));
}

/** One rate's tax as the services keep it (minor units, the percentage as exact decimal text). */
export interface TaxAmountFigures {
  taxRateId: string;
  displayName: string;
  percentage: string;
  inclusive: boolean;
  taxableAmount: number;
  amount: number;
}

/**
 * One entry of `total_tax_amounts` as the API and the webhook events show it (docs/api-behaviour.md
 * §21): an invoice's, a plan change's preview and a checkout session's quote alike.
 */
export const taxAmountView = (t: TaxAmountFigures) => ({
  tax_rate_id: t.taxRateId,
  display_name: t.displayName,
  percentage: Number(t.percentage),
  inclusive: t.inclusive,
  taxable_amount: toMajorUnits(t.taxableAmount),
  amount: toMajorUnits(t.amount),
});
