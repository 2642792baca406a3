import Decimal from 'decimal.js';

/** Usage quantities: up to 18 integer and 6 fraction digits, may be negative (a correction). */
export const MAX_INTEGER_DIGITS = 18;
export const MAX_FRACTION_DIGITS = 6;

// Plain decimal text only: an exponent ("1e3") is refused rather than expanded, so what the
// merchant wrote is what is billed (docs/malformed-input.md).
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const EXPONENT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i;
const MAX_TEXT_LENGTH = 100;

/** The exact decimal library, configured once: no precision loss for 24-digit quantities. */
export const ExactDecimal = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -100,
  toExpPos: 100,
});

/** Quantities must stay below this (18 integer digits); computed once, not per record. */
const INTEGER_LIMIT = new ExactDecimal(10).pow(MAX_INTEGER_DIGITS);

export type QuantityResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * The one quantity rule, applied by the gateway (a 422 at body.quantity) and by billing (which
 * stores the result): decimal text into canonical text, no exponent, no trailing zeros, no "-0"
 * ("1.5", "3", "-0.25"). Never goes through a float.
 */
export function parseUsageQuantity(input: string): QuantityResult {
  const text = input.trim();
  if (text.length <= MAX_TEXT_LENGTH && EXPONENT_TEXT.test(text)) {
    return { ok: false, reason: 'Decimal input should be written without an exponent' };
  }
  if (text.length > MAX_TEXT_LENGTH || !DECIMAL_TEXT.test(text)) {
    return { ok: false, reason: 'Input should be a valid decimal' };
  }
  const value = new ExactDecimal(text);
  if (value.decimalPlaces() > MAX_FRACTION_DIGITS) {
    return { ok: false, reason: `Decimal input should have no more than ${MAX_FRACTION_DIGITS} decimal places` };
  }
  if (!value.abs().lt(INTEGER_LIMIT)) {
    return {
      ok: false,
      reason: `Decimal input should have no more than ${MAX_INTEGER_DIGITS} digits before the decimal point`,
    };
  }
  return { ok: true, value: canonicalText(value) };
}

/** Canonical text of an exact decimal (e.g. NUMERIC text "1.500000" -> "1.5", "-0.000000" -> "0"). */
export function canonicalQuantity(exact: string): string {
  return canonicalText(new ExactDecimal(exact));
}

/** No exponent, no trailing zeros, no "-0": the one canonical form of a quantity. */
function canonicalText(value: Decimal): string {
  return value.isZero() ? '0' : value.toFixed();
}
