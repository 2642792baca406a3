import { DomainError, toMajorUnits, type FieldViolation } from '@billing/platform';

/**
 * What changed a customer's balance (docs/api-behaviour.md §20):
 *  - ADJUSTMENT: the merchant, through POST /customers/{id}/balance-adjustments;
 *  - PRORATION_CREDIT: the unused time of a downgrade (§18), owed to the customer;
 *  - APPLIED_TO_INVOICE: credit an invoice used (negative), or gave back when voided (positive).
 */
export type BalanceTransactionType = 'ADJUSTMENT' | 'PRORATION_CREDIT' | 'APPLIED_TO_INVOICE';

/** A balance change that would leave the balance below 0 (a 400 with this detail). */
export class InsufficientBalanceError extends DomainError {
  constructor(
    readonly balance: number,
    readonly amount: number,
  ) {
    super(
      'failed_precondition',
      `The customer's balance cannot go below 0: it is ${toMajorUnits(balance)} and the change is ${toMajorUnits(amount)}`,
    );
    this.name = 'InsufficientBalanceError';
  }
}

/** The balance after `amount`; refuses (InsufficientBalanceError) to go below 0. */
export function balanceAfter(balance: number, amount: number): number {
  const after = balance + amount;
  if (after < 0) throw new InsufficientBalanceError(balance, amount);
  if (!Number.isSafeInteger(after)) throw new RangeError(`balance ${after} is out of range`);
  return after;
}

/** Longest description kept with an adjustment. */
export const MAX_DESCRIPTION_LENGTH = 500;

/**
 * A merchant's adjustment as billing accepts it from any gRPC caller (the gateway checks the
 * shape first): a non-zero safe integer of minor units, an optional description.
 */
export function validateAdjustment(input: { amount: number; description?: string }): {
  amount: number;
  description: string | null;
} {
  const violations: FieldViolation[] = [];
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) {
    violations.push({
      loc: ['body', 'amount'],
      msg: 'Input should be a non-zero amount',
      type: 'value_error',
      input: input.amount,
    });
  }
  const description = input.description?.trim() || null;
  if (description && description.length > MAX_DESCRIPTION_LENGTH) {
    violations.push({
      loc: ['body', 'description'],
      msg: `String should have at most ${MAX_DESCRIPTION_LENGTH} characters`,
      type: 'string_too_long',
      ctx: { max_length: MAX_DESCRIPTION_LENGTH },
    });
  }
  if (violations.length) throw DomainError.invalid(violations);
  return { amount: input.amount, description };
}
