import Decimal from 'decimal.js';

/** Contract section 9: up to 18 integer and 6 fraction digits, may be negative. */
export const MAX_INTEGER_DIGITS = 18;
export const MAX_FRACTION_DIGITS = 6;

// Plain decimal text as a JSON number or string may carry it; an exponent is accepted and expanded
// (a JSON number like 1e-7 arrives as that text), then the digit limits apply to the exact value.
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The exact decimal library, configured once: no precision loss for 24-digit quantities. */
const Exact = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -100, toExpPos: 100 });

export type QuantityResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Parses a quantity (decimal text or number text) into canonical text: no exponent, no trailing
 * zeros, no "-0" ("1.5", "3", "-0.25"). Never goes through a float.
 */
export function parseUsageQuantity(input: string): QuantityResult {
  const text = input.trim();
  if (!DECIMAL_TEXT.test(text) || text.length > 100) return { ok: false, reason: 'Input should be a valid decimal' };
  const value = new Exact(text);
  if (value.decimalPlaces() > MAX_FRACTION_DIGITS) {
    return { ok: false, reason: `Decimal input should have no more than ${MAX_FRACTION_DIGITS} decimal places` };
  }
  if (!value.abs().lt(new Exact(10).pow(MAX_INTEGER_DIGITS))) {
    return {
      ok: false,
      reason: `Decimal input should have no more than ${MAX_INTEGER_DIGITS} digits before the decimal point`,
    };
  }
  return { ok: true, value: canonicalQuantity(value.toFixed()) };
}

/** Canonical text of an exact decimal (e.g. NUMERIC text "1.500000" -> "1.5", "-0.000000" -> "0"). */
export function canonicalQuantity(exact: string): string {
  const value = new Exact(exact);
  if (value.isZero()) return '0';
  return value.toFixed();
}

/**
 * quantity x unit amount (minor units), rounded once half away from zero to whole minor units.
 * Throws when the result is not a safe integer (an amount billing could not store exactly).
 */
export function usageAmount(quantity: string, unitAmount: number): number {
  const amount = new Exact(quantity).times(unitAmount).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  const result = amount.toNumber();
  if (!Number.isSafeInteger(result)) throw new RangeError(`usage amount ${amount.toFixed()} is out of range`);
  return result === 0 ? 0 : result;
}
