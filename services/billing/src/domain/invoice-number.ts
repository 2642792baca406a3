/** Invoice numbers run per project and mode (docs/api-behaviour.md §11): INV-000001, INV-000002, ... */
const PREFIX = 'INV-';
const MIN_DIGITS = 6;

/** Formats the counter's value; past 999999 the number simply grows a digit. */
export function formatInvoiceNumber(sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError('invoice sequence must be >= 1');
  return `${PREFIX}${String(sequence).padStart(MIN_DIGITS, '0')}`;
}
