import Decimal from 'decimal.js';

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
