import { html } from '@billing/platform';
import type { Coupon } from '../api-answers';
import { dashboardPage, day, figure, money, pager, status, table, type Frame } from './layout';

export interface CouponsView {
  coupons: Coupon[];
  limit: number;
  onFirstPage: boolean;
}

/** Coupons, newest first: GET /coupons (docs/api-behaviour.md §19). */
export function couponsPage(frame: Frame, view: CouponsView): string {
  return dashboardPage(
    frame,
    'Coupons',
    html`${table(
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
    ${pager('/dashboard/coupons', {}, view.coupons, view.limit, view.onFirstPage)}`,
  );
}
