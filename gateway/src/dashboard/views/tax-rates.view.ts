import { html } from '@billing/platform';
import type { TaxRate } from '../api-answers';
import { dashboardPage, day, figure, pager, status, table, type Frame } from './layout';

export interface TaxRatesView {
  taxRates: TaxRate[];
  limit: number;
  onFirstPage: boolean;
}

/** Tax rates, newest first: GET /tax-rates (docs/api-behaviour.md §21). */
export function taxRatesPage(frame: Frame, view: TaxRatesView): string {
  return dashboardPage(
    frame,
    'Tax rates',
    html`${table(
      'Tax rates, newest first',
      ['Name', 'Percentage', 'Inclusive', 'Country', 'Jurisdiction', 'State', 'Created'],
      view.taxRates.map((t) => [
        html`${t.display_name}`,
        figure(`${t.percentage} %`),
        html`${t.inclusive ? 'Included in prices' : 'Added on top'}`,
        html`${t.country ?? ''}`,
        html`${t.jurisdiction ?? ''}`,
        status(t.is_active ? 'ACTIVE' : 'INACTIVE'),
        html`${day(t.created_at)}`,
      ]),
    )}
    ${pager('/dashboard/tax-rates', {}, view.taxRates, view.limit, view.onFirstPage)}`,
  );
}
