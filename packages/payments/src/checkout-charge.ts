/**
 * The smallest charge that proves a card and saves a reusable authorization (1.00 in the
 * currency's major unit); it is refunded at once. Used when a checkout has nothing to charge
 * yet: a trial, or a first invoice that comes to nothing. What a checkout charges otherwise is
 * billing's quote of its first invoice (docs/api-behaviour.md §21).
 */
export const VERIFICATION_CHARGE_AMOUNT = 100;
