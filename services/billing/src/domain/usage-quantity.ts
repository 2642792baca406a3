import { AmountOutOfRangeError, ExactDecimal, roundMinorUnits } from '@billing/platform';

// The quantity rule itself lives in @billing/platform, shared with the gateway's validation.
export { canonicalQuantity, parseUsageQuantity, type QuantityResult } from '@billing/platform';

/**
 * quantity x unit amount (minor units), rounded once half away from zero to whole minor units.
 * Throws when the result is not a safe integer (an amount billing could not store exactly).
 */
export function usageAmount(quantity: string, unitAmount: number): number {
  return roundMinorUnits(new ExactDecimal(quantity).times(unitAmount));
}

/**
 * The most one usage record may bill, in minor units (NGN 10 billion): far above any real
 * record, and low enough that an invoice of thousands of them stays an exact integer
 * (docs/api-behaviour.md §9). A record above it is refused at intake (422 at quantity).
 */
export const MAX_USAGE_RECORD_AMOUNT = 1_000_000_000_000;

/** Why a record of `quantity` at `unitAmount` cannot be billed, or null when it can. */
export function usageAmountProblem(quantity: string, unitAmount: number | null): string | null {
  if (unitAmount === null) return null;
  let amount: number;
  try {
    amount = usageAmount(quantity, unitAmount);
  } catch (err) {
    if (!(err instanceof AmountOutOfRangeError)) throw err;
    amount = Infinity;
  }
  if (Math.abs(amount) <= MAX_USAGE_RECORD_AMOUNT) return null;
  return `The record would bill more than ${MAX_USAGE_RECORD_AMOUNT} minor units (quantity x usage_unit_amount); split it or correct the quantity`;
}
