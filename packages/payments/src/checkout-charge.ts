/**
 * The smallest charge that proves a card and saves a reusable authorization (1.00 in the
 * currency's major unit); it is refunded at once. Used when a checkout has nothing to charge
 * yet: a trial, or a free plan.
 */
export const VERIFICATION_CHARGE_AMOUNT = 100;

/** What the hosted checkout charges for a plan, in minor units; billing verifies the same rule. */
export function checkoutChargeAmount(plan: { amount: number; trialPeriodDays: number }): number {
  return plan.trialPeriodDays > 0 || plan.amount === 0 ? VERIFICATION_CHARGE_AMOUNT : plan.amount;
}

/** Whether the checkout's charge is only a card check, to be refunded after completion. */
export const isVerificationCharge = (plan: { amount: number; trialPeriodDays: number }) =>
  plan.trialPeriodDays > 0 || plan.amount === 0;
