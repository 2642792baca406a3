import { CURRENCIES, DomainError, toMajorUnits, type FieldViolation } from '@billing/platform';

/**
 * What changed a customer's balance (docs/api-behaviour.md §20):
 *  - ADJUSTMENT: the merchant, through POST /customers/{id}/balance-adjustments;
 *  - PRORATION_CREDIT: the unused time of a downgrade (§18), owed to the customer;
 *  - APPLIED_TO_INVOICE: credit an invoice used (negative), or gave back when voided (positive);
 *  - CREDIT_NOTE: a credit note of a paid invoice to the balance (§23).
 */
export type BalanceTransactionType = 'ADJUSTMENT' | 'PRORATION_CREDIT' | 'APPLIED_TO_INVOICE' | 'CREDIT_NOTE';

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

/** A change in another currency than the balance's (a 400 with this detail, §20). */
export class BalanceCurrencyError extends DomainError {
  constructor(balanceCurrency: string, currency: string) {
    super(
      'failed_precondition',
      `The customer's balance is in ${balanceCurrency}; a change in ${currency} cannot be made to it`,
    );
    this.name = 'BalanceCurrencyError';
  }
}

/**
 * The balance's currency after a change in `currency` (§20): the first change sets it; a change
 * in another one is refused (BalanceCurrencyError).
 */
export function balanceCurrencyAfter(balanceCurrency: string | null, currency: string): string {
  if (balanceCurrency !== null && balanceCurrency !== currency)
    throw new BalanceCurrencyError(balanceCurrency, currency);
  return currency;
}

/**
 * The balance an invoice of a subscription may use (§20): all of it when the invoice is in the
 * balance's currency and the subscription may spend it (not one a payer created by typing an
 * existing customer's e-mail on a hosted checkout), else none.
 */
export const usableBalance = (
  balance: { amount: number; currency: string | null },
  invoice: { currency: string; usesCustomerBalance: boolean },
): number => (invoice.usesCustomerBalance && balance.currency === invoice.currency ? Math.max(balance.amount, 0) : 0);

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
export function validateAdjustment(input: { amount: number; description?: string; currency?: string }): {
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
  if (input.currency !== undefined && !(CURRENCIES as readonly string[]).includes(input.currency)) {
    violations.push({
      loc: ['body', 'currency'],
      msg: `Input should be ${CURRENCIES.map((c) => `'${c}'`).join(', ')}`,
      type: 'enum',
      input: input.currency,
    });
  }
  if (violations.length) throw DomainError.invalid(violations);
  return { amount: input.amount, description };
}
