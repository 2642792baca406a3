import { html } from '@billing/platform';
import type { Plan } from '../api-answers';
import { dashboardPage, day, figure, money, pager, status, table, type Frame } from './layout';

export interface PlansView {
  plans: Plan[];
  limit: number;
  onFirstPage: boolean;
}

/** Plans, newest first: GET /plans. */
export function plansPage(frame: Frame, view: PlansView): string {
  return dashboardPage(
    frame,
    'Plans',
    html`${table(
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
    ${pager('/dashboard/plans', {}, view.plans, view.limit, view.onFirstPage)}`,
  );
}
