import type { ProjectScope } from '@billing/platform';
import type { AnalyticsDeps } from '../../analytics-deps';
import { checkedCurrency } from '../../domain/analytics-query';
import { summaryOf, thirtyDayWindow, type SummaryFigures } from '../../domain/analytics-figures';

/**
 * GET /analytics/summary (docs/api-behaviour.md §25): the current totals row and the daily rows
 * of the 30-day window ending with as_of's day; two reads of a bounded size whatever the number
 * of subscriptions.
 */
export async function getSummary(
  deps: AnalyticsDeps,
  scope: ProjectScope,
  command: { currency: string },
): Promise<{ summary: SummaryFigures; asOf: Date }> {
  const currency = checkedCurrency(command.currency);
  const asOf = await deps.clocks.now(scope);
  const currencyScope = { ...scope, currency };
  const [totals, days] = await Promise.all([
    deps.readModel.totals(currencyScope),
    deps.readModel.dailyRowsFrom(currencyScope, thirtyDayWindow(asOf.getTime()).firstDay),
  ]);
  return { summary: summaryOf(totals, days, asOf.getTime()), asOf };
}
