import type { SubscriptionModel } from '../db/models';
import type { NewInvoiceLine } from '../db/repositories/invoice.repository';
import { totalInvoice, type InvoiceTotals } from '../domain/invoice-totals';
import type { BillingDeps } from './billing-deps';
import { NO_INVOICE_TOTALS, type PlanChangeQuote } from './quote-plan-change';

/**
 * The money of a plan change's invoice as a preview shows it: its lines through totalInvoice
 * (the order discount -> balance -> charge, docs/api-behaviour.md §19, §20).
 */
export async function planChangeMoney(
  _deps: BillingDeps,
  _subscription: SubscriptionModel,
  quote: PlanChangeQuote,
): Promise<{ lines: NewInvoiceLine[]; totals: InvoiceTotals }> {
  if (quote.lines.length === 0) return { lines: [], totals: NO_INVOICE_TOTALS };
  return { lines: quote.lines, totals: totalInvoice(quote.lines, null, 0) };
}
