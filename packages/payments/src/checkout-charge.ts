import { discountAmount, type DiscountTerms } from '@billing/platform';

/**
 * The smallest charge that proves a card and saves a reusable authorization (1.00 in the
 * currency's major unit); it is refunded at once. Used when a checkout has nothing to charge
 * yet: a trial, or a free plan (or a discount that leaves nothing to pay).
 */
export const VERIFICATION_CHARGE_AMOUNT = 100;

/** What a checkout's plan costs: its price, and the discount's share of it (docs/api-behaviour.md §19). */
export interface CheckoutPrice {
  subtotal: number;
  discount: number;
  /** What the first period costs after the discount. */
  total: number;
}

/** The first period's price with a coupon's discount (discountAmount: rounded once, never below 0). */
export function checkoutPrice(plan: { amount: number }, discount: DiscountTerms | null = null): CheckoutPrice {
  const off = discount ? discountAmount(plan.amount, discount) : 0;
  return { subtotal: plan.amount, discount: off, total: plan.amount - off };
}

/** Whether the checkout's charge is only a card check, to be refunded after completion. */
export const isVerificationCharge = (
  plan: { amount: number; trialPeriodDays: number },
  discount: DiscountTerms | null = null,
) => plan.trialPeriodDays > 0 || checkoutPrice(plan, discount).total === 0;

/**
 * What the hosted checkout charges for a plan, in minor units; billing verifies the same rule:
 * the first period's discounted price, or the verification charge when that is nothing yet
 * (a trial: its discount applies to the first invoice after it).
 */
export function checkoutChargeAmount(
  plan: { amount: number; trialPeriodDays: number },
  discount: DiscountTerms | null = null,
): number {
  return isVerificationCharge(plan, discount) ? VERIFICATION_CHARGE_AMOUNT : checkoutPrice(plan, discount).total;
}
