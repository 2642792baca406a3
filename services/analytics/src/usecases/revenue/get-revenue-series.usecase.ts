import { formatMonth } from '@billing/analytics';
import type { ProjectScope } from '@billing/platform';
import type { AnalyticsDeps } from '../../analytics-deps';
import { checkedCurrency, checkedMonths } from '../../domain/analytics-query';
import { revenueMonthsOfRange, type RevenueMonthFigures } from '../../domain/analytics-figures';

export interface GetRevenueSeriesCommand {
  currency: string;
  from: string;
  to: string;
}

/**
 * GET /analytics/revenue (docs/api-behaviour.md §25): gross (InvoicePaymentFact.charged of the
 * invoices paid in the month), refunds, net and tax per month, from the revenue ledger's rows of
 * the range only.
 */
export async function getRevenueSeries(
  deps: AnalyticsDeps,
  scope: ProjectScope,
  command: GetRevenueSeriesCommand,
): Promise<{ months: RevenueMonthFigures[]; asOf: Date }> {
  const currency = checkedCurrency(command.currency);
  const months = checkedMonths(command.from, command.to);
  const asOf = await deps.clocks.now(scope);
  const rows = await deps.readModel.revenueMonthRows(
    { ...scope, currency },
    formatMonth(months[0]),
    formatMonth(months[months.length - 1]),
  );
  return { months: revenueMonthsOfRange(months, rows), asOf };
}
