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
  /** Given back through the provider (cancellation refunds, §10). */
  amountRefunded: number;
  lines: PeriodLine[];
}

const sum = (lines: PeriodLine[]) => lines.reduce((total, line) => total + line.amount, 0);

/**
 * The invoice that opens a period bills it with a SUBSCRIPTION line (a renewal, a first invoice,
 * or a change to another interval, §18); its negative PRORATION line, if any, is the unused
 * time of the period before, not credit returned from this one.
 */
const opensPeriod = (lines: PeriodLine[]) => lines.some((line) => line.type === 'SUBSCRIPTION');

/**
 * What one PAID invoice paid for the period and still holds: its SUBSCRIPTION and positive
 * PRORATION charges less their share of the DISCOUNT line (the discount covers them and the USAGE
 * lines, §19, so the share is charges x discount / discounted lines, rounded once), less the
 * unused-time credit it returned for this period (a change within the period, §18), less what
 * was refunded of it. Any other status collected nothing: 0, whatever its lines say.
 */
export function heldOfInvoice(invoice: PeriodInvoiceMoney): number {
  if (invoice.status !== 'PAID') return 0;
  const charges = sum(
    invoice.lines.filter((l) => l.type === 'SUBSCRIPTION' || (l.type === 'PRORATION' && l.amount > 0)),
  );
  const discounted = sum(invoice.lines.filter(isDiscounted));
  const discount = -sum(invoice.lines.filter((l) => l.type === 'DISCOUNT'));
  const discountOnCharges = discount > 0 && discounted > 0 ? shareOfAmount(discount, charges, discounted) : 0;
  const returned = opensPeriod(invoice.lines)
    ? 0
    : -sum(invoice.lines.filter((l) => l.type === 'PRORATION' && l.amount < 0));
  return charges - discountOnCharges - returned - invoice.amountRefunded;
}

/** P: the sum over the period's invoices, never below 0. */
export function heldForPeriod(invoices: PeriodInvoiceMoney[]): number {
  return Math.max(
    0,
    invoices.reduce((total, invoice) => total + heldOfInvoice(invoice), 0),
  );
}
