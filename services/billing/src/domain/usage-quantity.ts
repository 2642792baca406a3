import Decimal from 'decimal.js';
import { ExactDecimal } from '@billing/platform';

// The quantity rule itself lives in @billing/platform, shared with the gateway's validation.
export { canonicalQuantity, parseUsageQuantity, type QuantityResult } from '@billing/platform';

/**
 * quantity x unit amount (minor units), rounded once half away from zero to whole minor units.
 * Throws when the result is not a safe integer (an amount billing could not store exactly).
 */
export function usageAmount(quantity: string, unitAmount: number): number {
  const amount = new ExactDecimal(quantity).times(unitAmount).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  const result = amount.toNumber();
  if (!Number.isSafeInteger(result)) throw new RangeError(`usage amount ${amount.toFixed()} is out of range`);
  return result === 0 ? 0 : result;
}
