import { DomainError } from '@billing/platform';
import { MonthRangeError, monthsOfRange, type Month } from '@billing/analytics';

const CURRENCY = /^[A-Z]{3}$/;

/** A query's currency: ISO 4217, three upper-case letters (docs/api-behaviour.md §25). */
export function checkedCurrency(currency: string): string {
  if (!CURRENCY.test(currency)) {
    throw new DomainError('invalid_argument', `currency ${JSON.stringify(currency)} is not three upper-case letters`);
  }
  return currency;
}

/** A query's months (monthsOfRange of @billing/analytics); a refused range is INVALID_ARGUMENT with its message. */
export function checkedMonths(from: string, to: string): Month[] {
  try {
    return monthsOfRange(from, to);
  } catch (err) {
    if (err instanceof MonthRangeError) throw new DomainError('invalid_argument', err.message);
    throw err;
  }
}
