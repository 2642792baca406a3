import { discountAmount, taxAmountsOf, type DiscountTerms, type InvoiceTax, type TaxAmount } from '@billing/platform';

/** The line types an invoice can carry (docs/api-behaviour.md §8, §18, §19). */
export type ChargeLineType = 'SUBSCRIPTION' | 'USAGE' | 'FEE' | 'PRORATION';

/** A line as billed, before the discount: amounts in minor units (PRORATION may be negative). */
export interface ChargeLine {
  type: ChargeLineType;
  amount: number;
}

/** The discount a subscription carries on this invoice (§19), or null. */
export interface InvoiceDiscount extends DiscountTerms {
  /** The DISCOUNT line's description, e.g. "WELCOME25 (25% off)". */
  description: string;
}

// The tax rules themselves (§21) live in the platform, shared with analytics' MRR (§25): billing
// re-exports them so its callers keep one import.
export {
  NO_TAX,
  TAX_EXEMPTIONS,
  taxAmountsOf,
  type InvoiceTax,
  type InvoiceTaxRate,
  type TaxAmount,
  type TaxExempt,
} from '@billing/platform';

/** What a REVERSE customer's invoices say instead of charging tax (§21). */
export const REVERSE_CHARGE_NOTE = 'Reverse charge';

export interface InvoiceTotals {
  /** The sum of every line before the discount. */
  subtotal: number;
  /** The DISCOUNT line's amount as a positive number (0 when none). */
  discount: number;
  /** The sum of the per-rate tax amounts (each rounded once). */
  tax: number;
  /** subtotal - discount - the inclusive taxes. */
  totalExcludingTax: number;
  /** The invoice total: subtotal - discount + the exclusive taxes (= totalExcludingTax + tax). */
  amount: number;
  /** One entry per rate, in the order of the rates. */
  taxAmounts: TaxAmount[];
  /** "Reverse charge" for a REVERSE customer, else null. */
  taxNote: string | null;
  /** The customer's balance used on this invoice: min(balance, amount), never below 0. */
  creditApplied: number;
  /** amount - creditApplied: what the card is charged; 0 means PAID without a provider call. */
  amountDue: number;
  /**
   * A negative amount (a downgrade's proration) is owed to the customer: it goes to the balance
   * (§18, §20) and the invoice's amount_due is 0.
   */
  creditToBalance: number;
}

/** The lines a discount covers (§19): SUBSCRIPTION, USAGE and positive PRORATION (a change's new plan). */
export const isDiscounted = (line: { type: string; amount: number }) =>
  line.type === 'SUBSCRIPTION' || line.type === 'USAGE' || (line.type === 'PRORATION' && line.amount > 0);

const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0);

/**
 * One invoice's money, the single place the order of operations is written (§19, §20, §21):
 * discount on the SUBSCRIPTION, USAGE and positive PRORATION lines, then tax on what is left,
 * then the customer's balance, then the charge. The discount and each rate's tax are rounded
 * once (half away from zero, roundMinorUnits); the rest is integer arithmetic on minor units.
 */
export function totalInvoice(
  lines: ChargeLine[],
  discount: InvoiceDiscount | null,
  tax: InvoiceTax,
  balance: number,
): InvoiceTotals {
  const subtotal = sum(lines.map((line) => line.amount));
  const discountable = sum(lines.filter(isDiscounted).map((line) => line.amount));
  const off = discount ? discountAmount(discountable, discount) : 0;
  const taxable = subtotal - off;
  const taxAmounts = taxAmountsOf(taxable, tax);
  const inclusive = sum(taxAmounts.filter((t) => t.inclusive).map((t) => t.amount));
  const exclusive = sum(taxAmounts.filter((t) => !t.inclusive).map((t) => t.amount));
  const amount = taxable + exclusive;
  const money = {
    subtotal,
    discount: off,
    tax: inclusive + exclusive,
    totalExcludingTax: taxable - inclusive,
    amount,
    taxAmounts,
    taxNote: tax.exempt === 'REVERSE' ? REVERSE_CHARGE_NOTE : null,
  };
  if (amount < 0) return { ...money, creditApplied: 0, amountDue: 0, creditToBalance: -amount };
  const creditApplied = Math.min(Math.max(balance, 0), amount);
  return { ...money, creditApplied, amountDue: amount - creditApplied, creditToBalance: 0 };
}
