import { shareOfAmount } from './money';

/**
 * A coupon's price terms (docs/api-behaviour.md §19): exactly one of the two is set.
 * `percentOff` is an exact decimal string ("25", "12.5"; 0 < x <= 100, at most 2 decimals);
 * `amountOff` is integer minor units in the coupon's currency.
 */
export interface DiscountTerms {
  percentOff: string | null;
  amountOff: number | null;
}

/**
 * What a discount takes off `base` (minor units, the sum of an invoice's SUBSCRIPTION and USAGE
 * lines): percent_off of it, or amount_off capped at it; never more than the base nor below 0;
 * rounded once, half away from zero, to whole minor units. Billing's totalInvoice is its caller:
 * every invoice and the quote of a checkout's first invoice (docs/api-behaviour.md §21).
 */
export function discountAmount(base: number, terms: DiscountTerms): number {
  if (base <= 0) return 0;
  if (terms.percentOff !== null) {
    return Math.min(base, shareOfAmount(base, terms.percentOff, 100));
  }
  if (terms.amountOff !== null) return Math.min(base, Math.max(0, terms.amountOff));
  return 0;
}
