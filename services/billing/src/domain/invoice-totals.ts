import { discountAmount, type DiscountTerms } from '@billing/platform';

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

export interface InvoiceTotals {
  /** The sum of every line before the discount. */
  subtotal: number;
  /** The DISCOUNT line's amount as a positive number (0 when none). */
  discount: number;
  /** subtotal - discount. */
  amount: number;
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

/**
 * One invoice's money, the single place the order of operations is written (§19, §20):
 * discount on the SUBSCRIPTION, USAGE and positive PRORATION lines, then the customer's balance, then the charge.
 * Each step rounds at most once (the discount inside discountAmount); the rest is integer
 * arithmetic on minor units.
 */
export function totalInvoice(lines: ChargeLine[], discount: InvoiceDiscount | null, balance: number): InvoiceTotals {
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  const discountable = lines.filter(isDiscounted).reduce((sum, line) => sum + line.amount, 0);
  const off = discount ? discountAmount(discountable, discount) : 0;
  const amount = subtotal - off;
  if (amount < 0) {
    return { subtotal, discount: off, amount, creditApplied: 0, amountDue: 0, creditToBalance: -amount };
  }
  const creditApplied = Math.min(Math.max(balance, 0), amount);
  return { subtotal, discount: off, amount, creditApplied, amountDue: amount - creditApplied, creditToBalance: 0 };
}
