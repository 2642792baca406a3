import { formatMonth } from '@billing/analytics';
import type { ProjectScope } from '@billing/platform';
import type { AnalyticsDeps } from '../../analytics-deps';
import { checkedCurrency, checkedMonths } from '../../domain/analytics-query';
import { mrrMonthsOfRange, type MrrMonthFigures } from '../../domain/analytics-figures';

export interface GetMrrSeriesCommand {
  currency: string;
  from: string;
  to: string;
}

/**
 * GET /analytics/mrr (docs/api-behaviour.md §25): every month of the range with its MRR at its
 * end (at as_of for the current month) and its movements, from the project's MRR ledger rows
 * up to the range's end (one row per month with a change: bounded by the project's age).
 */
export async function getMrrSeries(
  deps: AnalyticsDeps,
  scope: ProjectScope,
  command: GetMrrSeriesCommand,
): Promise<{ months: MrrMonthFigures[]; asOf: Date }> {
  const currency = checkedCurrency(command.currency);
  const months = checkedMonths(command.from, command.to);
  const asOf = await deps.clocks.now(scope);
  const rows = await deps.readModel.mrrMonthRows({ ...scope, currency }, formatMonth(months[months.length - 1]));
  return { months: mrrMonthsOfRange(months, rows, asOf.getTime()), asOf };
}
