import type { SubscriptionModel } from '../db/models';
import type { NewInvoiceLine } from '../db/repositories/invoice.repository';
import { usableBalance } from '../domain/customer-balance';
import { totalInvoice, type InvoiceTotals } from '../domain/invoice-totals';
import type { BillingDeps } from '../billing-deps';
import { discountLines, invoiceDiscountOf, taxedLines } from '../invoicing/invoice-money';
import { invoiceTaxOf } from '../invoicing/invoice-taxes';
import { NO_INVOICE_TOTALS, type PlanChangeQuote } from './quote-plan-change';

/**
 * The money of a plan change's invoice as its preview shows it (docs/api-behaviour.md §18): the
 * quote's lines through totalInvoice with the subscription's discount, its tax (§21) and the
 * customer's balance as they are now, and the DISCOUNT line, exactly as createInvoices will total
 * and write them when the change makes the invoice.
 */
export async function planChangeMoney(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  quote: PlanChangeQuote,
): Promise<{ lines: NewInvoiceLine[]; totals: InvoiceTotals }> {
  if (quote.lines.length === 0) return { lines: [], totals: NO_INVOICE_TOTALS };
  const discount = invoiceDiscountOf(subscription);
  const [balance, tax] = await Promise.all([
    deps.balances.balanceOf(subscription.customerId),
    invoiceTaxOf(deps, subscription),
  ]);
  const totals = totalInvoice(quote.lines, discount, tax, usableBalance(balance, subscription));
  return { lines: taxedLines([...quote.lines, ...discountLines(discount, totals, quote.period)], tax), totals };
}
