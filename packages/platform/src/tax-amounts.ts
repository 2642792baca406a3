import { ExactDecimal } from './quantity';
import { shareOfAmount } from './money';

/** How a customer is taxed (docs/api-behaviour.md §21): NONE (taxed), EXEMPT, or REVERSE (reverse charge). */
export const TAX_EXEMPTIONS = ['NONE', 'EXEMPT', 'REVERSE'] as const;
export type TaxExempt = (typeof TAX_EXEMPTIONS)[number];

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
export function taxAmountsOf(taxable: number, tax: InvoiceTax): TaxAmount[] {
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

/**
 * `taxable` less its inclusive taxes, each rounded once as taxAmountsOf rounds it: an invoice's
 * total excluding tax (§21), and a subscription's MRR before it is normalised to a month (§25).
 */
export function netOfInclusiveTax(taxable: number, tax: InvoiceTax): number {
  const inclusive = taxAmountsOf(taxable, tax)
    .filter((t) => t.inclusive)
    .reduce((total, t) => total + t.amount, 0);
  return taxable - inclusive;
}
