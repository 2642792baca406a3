import { discountAmount, ExactDecimal, shareOfAmount, type DiscountTerms } from '@billing/platform';

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

/** How a customer is taxed (§21): NONE (taxed), EXEMPT, or REVERSE (reverse charge). */
export const TAX_EXEMPTIONS = ['NONE', 'EXEMPT', 'REVERSE'] as const;
export type TaxExempt = (typeof TAX_EXEMPTIONS)[number];

/** What a REVERSE customer's invoices say instead of charging tax (§21). */
export const REVERSE_CHARGE_NOTE = 'Reverse charge';

/**
 * A tax rate as an invoice applies it: the rate as it is when the invoice is created, kept on the
 * invoice, so a later change of the rate (its name, its activity) never changes an issued invoice.
 */
export interface InvoiceTaxRate {
  taxRateId: string;
  displayName: string;
  /** Exact decimal text, 0 <= p < 100, at most 4 decimals ("7.5"). */
  percentage: string;
  inclusive: boolean;
}

/** The tax of one invoice (§21): its subscription's rates, in order, and its customer's exemption. */
export interface InvoiceTax {
  rates: InvoiceTaxRate[];
  exempt: TaxExempt;
}

/** No rates, a taxed customer: nothing is added. */
export const NO_TAX: InvoiceTax = { rates: [], exempt: 'NONE' };

/** One entry of an invoice's total_tax_amounts: a rate, the net it was computed on, its amount. */
export interface TaxAmount extends InvoiceTaxRate {
  /** The net (taxable less its inclusive taxes), the same for every rate; minor units. */
  taxableAmount: number;
  /** This rate's tax, rounded once; 0 for an exempt or reverse-charge customer. */
  amount: number;
}

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

/**
 * The tax of each rate on `taxable` (subtotal - discount), §21. With inclusive rates I (their
 * percentages summing to P) and exclusive rates E, in exact decimals:
 *   inclusive tax_i = taxable x p_i / (100 + P); net = taxable x 100 / (100 + P);
 *   exclusive tax_e = net x p_e / 100,
 * each rounded once. Rates never compound: every exclusive rate is on the net, none on another's
 * tax. A negative taxable (a downgrade's credit) gives negative taxes, so the credit carries back
 * the tax its amount bore. An EXEMPT or REVERSE customer is charged none: every amount 0, the net
 * the taxable as priced.
 */
function taxAmountsOf(taxable: number, tax: InvoiceTax): TaxAmount[] {
  if (tax.exempt !== 'NONE') return tax.rates.map((rate) => ({ ...rate, taxableAmount: taxable, amount: 0 }));
  const whole = tax.rates
    .filter((rate) => rate.inclusive)
    .reduce((total, rate) => total.plus(rate.percentage), new ExactDecimal(100));
  // net x p_e / 100 = taxable x p_e / (100 + P): every rate, inclusive or exclusive, is one share
  // of the taxable, divided once.
  const taxableAmount = shareOfAmount(taxable, 100, whole);
  return tax.rates.map((rate) => ({
    ...rate,
    taxableAmount,
    amount: shareOfAmount(taxable, rate.percentage, whole),
  }));
}
