import { CURRENCIES, html } from '@billing/platform';
import type { AnalyticsSummary, MrrMonth, RevenueMonth } from '../api-answers';
import { dashboardPage, facts, figure, money, select, table, when, type Frame } from './layout';

export interface HomeView {
  currency: string;
  summary: AnalyticsSummary;
  mrr: MrrMonth[];
  revenue: RevenueMonth[];
}

/** "2.50 %": a rate of 0..1 as the API gives it (4 decimals), in percent. */
const percent = (rate: number) => `${(rate * 100).toFixed(2)} %`;

/**
 * Home (docs/api-behaviour.md §25): the summary, MRR of the last 12 months as a chart and as the
 * table it is drawn from (dashboard.js reads the rows' data-mrr: the chart and the table are the
 * same points, GET /analytics/mrr's), and revenue by month. Without script, the table alone.
 */
export function homePage(frame: Frame, view: HomeView): string {
  const { currency, summary } = view;
  const m = (amount: number) => money(amount, currency);
  return dashboardPage(
    frame,
    'Home',
    html`<form method="get" action="/dashboard" class="filters">
        ${select(
          'currency',
          'currency',
          'Currency',
          CURRENCIES.map((c) => [c, c]),
          currency,
        )}
        <button type="submit" class="secondary">Show</button>
      </form>
      <section aria-labelledby="summary-heading">
        <h2 id="summary-heading">Summary</h2>
        ${facts([
          ['MRR', m(summary.mrr)],
          ['ARR', m(summary.arr)],
          ['Active subscriptions', String(summary.active_subscriptions)],
          ['Trialing subscriptions', String(summary.trialing_subscriptions)],
          ['Past-due subscriptions', String(summary.past_due_subscriptions)],
          ['Paying customers', String(summary.customers)],
          ['ARPU', m(summary.arpu)],
          ['Subscriber churn, last 30 days', percent(summary.subscriber_churn_rate_30d)],
          ['Net revenue, last 30 days', m(summary.net_revenue_30d)],
          ['As of', when(summary.as_of)],
        ])}
      </section>
      <section aria-labelledby="mrr-heading">
        <h2 id="mrr-heading">MRR, last 12 months</h2>
        <figure id="mrr-figure" class="chart" hidden>
          <canvas
            id="mrr-chart"
            data-currency="${currency}"
            role="img"
            aria-label="Line chart of MRR by month in ${currency}; the table below lists the same figures"
          ></canvas>
          <figcaption>MRR at each month's end (the current month: now), in ${currency}.</figcaption>
        </figure>
        <div class="table-wrap">
          <table id="mrr-table">
            <caption>
              MRR by month, ${currency}
            </caption>
            <thead>
              <tr>
                ${[
                  'Month',
                  'MRR',
                  'New',
                  'Expansion',
                  'Contraction',
                  'Churned',
                  'Reactivation',
                  'Active subscriptions',
                ].map((h) => html`<th scope="col">${h}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${view.mrr.map(
                (p) =>
                  html`<tr data-month="${p.month}" data-mrr="${String(p.mrr)}">
                    <th scope="row">${p.month}</th>
                    <td>${figure(m(p.mrr))}</td>
                    <td>${figure(m(p.new))}</td>
                    <td>${figure(m(p.expansion))}</td>
                    <td>${figure(m(p.contraction))}</td>
                    <td>${figure(m(p.churned))}</td>
                    <td>${figure(m(p.reactivation))}</td>
                    <td>${figure(String(p.active_subscriptions))}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="revenue-heading">
        <h2 id="revenue-heading">Revenue by month</h2>
        ${table(
          `Revenue by month, ${currency}`,
          ['Month', 'Gross', 'Refunds', 'Net', 'Tax'],
          view.revenue.map((r) => [
            html`${r.month}`,
            figure(m(r.gross)),
            figure(m(r.refunds)),
            figure(m(r.net)),
            figure(m(r.tax)),
          ]),
        )}
      </section>`,
    ['chart.umd.min.js', 'dashboard.js'],
  );
}
