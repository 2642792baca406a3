import { html } from '@billing/platform';
import type { TaxRate } from '../api-answers';
import { csrfField, dashboardPage, day, figure, notice, pager, status, table, type Frame } from './layout';

export interface TaxRatesView {
  taxRates: TaxRate[];
  limit: number;
  onFirstPage: boolean;
  notice?: string;
}

/** Tax rates, newest first (GET /tax-rates, docs/api-behaviour.md §21), and a form creating one (POST /tax-rates). */
export function taxRatesPage(frame: Frame, view: TaxRatesView): string {
  return dashboardPage(
    frame,
    'Tax rates',
    html`${notice(view.notice)}
      <section aria-labelledby="rates-heading">
        <h2 id="rates-heading">Tax rates of this project and mode</h2>
        ${table(
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
        ${pager('/dashboard/tax-rates', {}, view.taxRates, view.limit, view.onFirstPage)}
      </section>
      <section aria-labelledby="new-rate-heading">
        <h2 id="new-rate-heading">Create a tax rate</h2>
        <p class="hint">A rate's percentage and whether it is included never change once created.</p>
        <form method="post" action="/dashboard/tax-rates" class="stacked">
          ${csrfField(frame.csrfToken)}
          <label for="rate-name">Name on invoices</label>
          <input id="rate-name" name="display_name" type="text" required maxlength="50" />
          <label for="rate-percentage">Percentage</label>
          <input id="rate-percentage" name="percentage" type="text" inputmode="decimal" required />
          <div class="check">
            <input type="checkbox" id="rate-inclusive" name="inclusive" value="true" />
            <label for="rate-inclusive">Included in prices</label>
          </div>
          <label for="rate-country">Country (optional, two letters)</label>
          <input id="rate-country" name="country" type="text" maxlength="2" />
          <label for="rate-jurisdiction">Jurisdiction (optional)</label>
          <input id="rate-jurisdiction" name="jurisdiction" type="text" maxlength="50" />
          <button type="submit">Create tax rate</button>
        </form>
      </section>`,
  );
}
