import { shareOfAmount } from '@billing/platform';
import { isDiscounted } from './invoice-totals';

/**
 * P of docs/api-behaviour.md §10 and §18: what the customer actually paid for the current period
 * and the platform still holds. Pure: amounts in minor units. Plan changes credit the unused
 * share of P (never of the list price) and cancellation refunds give back a share of P, so no
 * sequence of changes, cancellations and refunds returns money that was never paid.
 */

/** An invoice line, as far as P cares. */
export interface PeriodLine {
  type: string;
  amount: number;
}

/** An invoice that bills (part of) the current period: its period lies within the period. */
export interface PeriodInvoiceMoney {
  status: string;
  /**
   * The invoice total (§21: its lines, discount included, plus the exclusive taxes): what its
   * lines add up to, and the exclusive tax they bore above that.
   */
  amount: number;
  /** Given back through the provider (cancellation refunds, §10). */
  amountRefunded: number;
  lines: PeriodLine[];
}

/** What one invoice holds of the period, in parts. */
export interface HeldOfInvoice {
  /** Its charges for the period after their share of the discount, less credit it returned. */
  beforeTax: number;
  /** The exclusive tax those bore (§21): their share of the invoice's exclusive taxes. */
  tax: number;
  /** What was given back of it through the provider. */
  refunded: number;
}

const sum = (lines: PeriodLine[]) => lines.reduce((total, line) => total + line.amount, 0);

/**
 * The invoice that opens a period bills it with a SUBSCRIPTION line (a renewal, a first invoice,
 * or a change to another interval, §18); its negative PRORATION line, if any, is the unused
 * time of the period before, not credit returned from this one.
 */
const opensPeriod = (lines: PeriodLine[]) => lines.some((line) => line.type === 'SUBSCRIPTION');

/**
 * What one PAID invoice paid for the period and still holds, in parts: its SUBSCRIPTION and
 * positive PRORATION charges less their share of the DISCOUNT line (the discount covers them and
 * the USAGE lines, §19, so the share is charges x discount / discounted lines, rounded once), less
 * the unused-time credit it returned for this period (a change within the period, §18); the
 * exclusive tax those bore (§21: the invoice's exclusive taxes, amount - its lines, in the share
 * of that net in all its lines, rounded once; a returned credit carried its tax back, so the
 * share has its sign); and what was refunded of it. Any other status collected nothing.
 */
export function heldPartsOfInvoice(invoice: PeriodInvoiceMoney): HeldOfInvoice {
  if (invoice.status !== 'PAID') return { beforeTax: 0, tax: 0, refunded: 0 };
  const charges = sum(
    invoice.lines.filter((l) => l.type === 'SUBSCRIPTION' || (l.type === 'PRORATION' && l.amount > 0)),
  );
  const discounted = sum(invoice.lines.filter(isDiscounted));
  const discount = -sum(invoice.lines.filter((l) => l.type === 'DISCOUNT'));
  const discountOnCharges = discount > 0 && discounted > 0 ? shareOfAmount(discount, charges, discounted) : 0;
  const returned = opensPeriod(invoice.lines)
    ? 0
    : -sum(invoice.lines.filter((l) => l.type === 'PRORATION' && l.amount < 0));
  const beforeTax = charges - discountOnCharges - returned;
  // Every line, the DISCOUNT line included, is the invoice's taxable amount (subtotal - discount).
  const taxable = sum(invoice.lines);
  const exclusiveTax = invoice.amount - taxable;
  const tax = exclusiveTax !== 0 && taxable !== 0 ? shareOfAmount(exclusiveTax, beforeTax, taxable) : 0;
  return { beforeTax, tax, refunded: invoice.amountRefunded };
}

/** What one invoice holds of the period, tax included (heldPartsOfInvoice, summed). */
export function heldOfInvoice(invoice: PeriodInvoiceMoney): number {
  const { beforeTax, tax, refunded } = heldPartsOfInvoice(invoice);
  return beforeTax + tax - refunded;
}

/**
 * P: the sum over the period's invoices, tax included, never below 0: what a cancellation
 * refund gives a share of (§10, §21: "a refund is a share of what was paid, tax included").
 */
export function heldForPeriod(invoices: PeriodInvoiceMoney[]): number {
  return Math.max(
    0,
    invoices.reduce((total, invoice) => total + heldOfInvoice(invoice), 0),
  );
}

/**
 * P before its exclusive tax: what the unused-time line of a plan change is a share of (§18).
 * That line is a negative PRORATION line of the change's invoice, which is taxed like any other
 * (§21), so the credit carries back its exclusive tax there; counting the tax here too would
 * give it back twice. P held with tax x (what was held before tax / with it), rounded once; P
 * itself when the period bore no exclusive tax.
 */
export function heldBeforeTaxForPeriod(invoices: PeriodInvoiceMoney[]): number {
  const held = heldForPeriod(invoices);
  const parts = invoices.map(heldPartsOfInvoice);
  const beforeTax = parts.reduce((total, part) => total + part.beforeTax, 0);
  const withTax = beforeTax + parts.reduce((total, part) => total + part.tax, 0);
  if (withTax === beforeTax) return held;
  if (beforeTax <= 0 || withTax <= 0) return 0;
  return shareOfAmount(held, beforeTax, withTax);
}
