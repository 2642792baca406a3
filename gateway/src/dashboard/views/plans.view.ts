import { CURRENCIES, html } from '@billing/platform';
import type { Plan } from '../api-answers';
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

export interface PlansView {
  plans: Plan[];
  limit: number;
  onFirstPage: boolean;
  notice?: string;
}

const INTERVALS = ['monthly', 'weekly', 'daily', 'quarterly', 'biannually', 'annually'];

/** Plans, newest first (GET /plans), and a form creating one (POST /plans). */
export function plansPage(frame: Frame, view: PlansView): string {
  return dashboardPage(
    frame,
    'Plans',
    html`${notice(view.notice)}
      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading">Plans of this project and mode</h2>
        ${table(
          'Plans, newest first',
          ['Name', 'Price', 'Every', 'Trial', 'Metered', 'State', 'Created'],
          view.plans.map((p) => [
            html`${p.name}`,
            figure(money(p.amount, p.currency)),
            html`${p.interval_count > 1 ? `${p.interval_count} × ` : ''}${p.interval}`,
            html`${p.trial_period_days ? `${p.trial_period_days} days` : ''}`,
            figure(p.usage_unit_amount !== null ? `${money(p.usage_unit_amount, p.currency)} a unit` : ''),
            status(p.is_active ? 'ACTIVE' : 'INACTIVE'),
            html`${day(p.created_at)}`,
          ]),
        )}
        ${pager('/dashboard/plans', {}, view.plans, view.limit, view.onFirstPage)}
      </section>
      <section aria-labelledby="new-plan-heading">
        <h2 id="new-plan-heading">Create a plan</h2>
        <form method="post" action="/dashboard/plans" class="stacked">
          ${csrfField(frame.csrfToken)}
          <label for="plan-name">Name</label>
          <input id="plan-name" name="name" type="text" required maxlength="200" />
          <label for="plan-amount">Price per period</label>
          <input id="plan-amount" name="amount" type="text" inputmode="decimal" required />
          ${select(
            'plan-currency',
            'currency',
            'Currency',
            CURRENCIES.map((c): [string, string] => [c, c]),
            'NGN',
          )}
          ${select(
            'plan-interval',
            'interval',
            'Billed',
            INTERVALS.map((i): [string, string] => [i, i]),
            'monthly',
          )}
          <label for="plan-interval-count">Every how many of those periods</label>
          <input id="plan-interval-count" name="interval_count" type="text" inputmode="numeric" value="1" />
          <label for="plan-trial">Trial days</label>
          <input id="plan-trial" name="trial_period_days" type="text" inputmode="numeric" value="0" />
          <label for="plan-description">Description (optional)</label>
          <input id="plan-description" name="description" type="text" maxlength="2000" />
          <button type="submit">Create plan</button>
        </form>
      </section>`,
  );
}
