import { CURRENCIES, html } from '@billing/platform';
import type { Coupon } from '../api-answers';
import {
  csrfField,
  dashboardPage,
  day,
  figure,
  money,
  notice,
  pager,
  select,
  status,
  table,
  type Frame,
} from './layout';

export interface CouponsView {
  coupons: Coupon[];
  limit: number;
  onFirstPage: boolean;
  notice?: string;
}

const DURATIONS: [string, string][] = [
  ['ONCE', 'The first invoice'],
  ['REPEATING', 'A number of invoices'],
  ['FOREVER', 'Every invoice'],
];

/** Coupons, newest first (GET /coupons, docs/api-behaviour.md §19), and a form creating one (POST /coupons). */
export function couponsPage(frame: Frame, view: CouponsView): string {
  return dashboardPage(
    frame,
    'Coupons',
    html`${notice(view.notice)}
      <section aria-labelledby="coupons-heading">
        <h2 id="coupons-heading">Coupons of this project and mode</h2>
        ${table(
          'Coupons, newest first',
          ['Code', 'Name', 'Off', 'Duration', 'Redeemed', 'Redeem by', 'State'],
          view.coupons.map((c) => [
            html`${c.code}`,
            html`${c.name ?? ''}`,
            figure(
              c.percent_off !== null
                ? `${c.percent_off} %`
                : c.amount_off !== null && c.currency
                  ? money(c.amount_off, c.currency)
                  : '',
            ),
            html`${c.duration}${c.duration_in_periods ? ` (${c.duration_in_periods} periods)` : ''}`,
            figure(`${c.times_redeemed}${c.max_redemptions !== null ? ` of ${c.max_redemptions}` : ''}`),
            html`${day(c.redeem_by)}`,
            status(c.is_active ? 'ACTIVE' : 'INACTIVE'),
          ]),
        )}
        ${pager('/dashboard/coupons', {}, view.coupons, view.limit, view.onFirstPage)}
      </section>
      <section aria-labelledby="new-coupon-heading">
        <h2 id="new-coupon-heading">Create a coupon</h2>
        <form method="post" action="/dashboard/coupons" class="stacked">
          ${csrfField(frame.csrfToken)}
          <label for="coupon-code">Code</label>
          <input id="coupon-code" name="code" type="text" required maxlength="50" />
          <label for="coupon-name">Name (optional)</label>
          <input id="coupon-name" name="name" type="text" maxlength="200" />
          <p class="hint" id="coupon-off-hint">Either a percentage or an amount in one currency.</p>
          <label for="coupon-percent">Percent off</label>
          <input
            id="coupon-percent"
            name="percent_off"
            type="text"
            inputmode="decimal"
            aria-describedby="coupon-off-hint"
          />
          <label for="coupon-amount">Amount off</label>
          <input
            id="coupon-amount"
            name="amount_off"
            type="text"
            inputmode="decimal"
            aria-describedby="coupon-off-hint"
          />
          ${select('coupon-currency', 'currency', 'Currency of the amount', [['', 'None (a percentage)'], ...CURRENCIES.map((c): [string, string] => [c, c])], '')}
          ${select('coupon-duration', 'duration', 'Applies to', DURATIONS, 'ONCE')}
          <label for="coupon-periods">How many invoices (with "A number of invoices")</label>
          <input id="coupon-periods" name="duration_in_periods" type="text" inputmode="numeric" />
          <label for="coupon-max">Most redemptions (optional)</label>
          <input id="coupon-max" name="max_redemptions" type="text" inputmode="numeric" />
          <button type="submit">Create coupon</button>
        </form>
      </section>`,
  );
}
