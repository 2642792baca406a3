import { html } from '@billing/platform';
import type { Plan, Subscription } from '../api-answers';
import { dashboardPage, day, figure, money, pager, select, status, table, type Frame } from './layout';

export const SUBSCRIPTION_FILTERS = ['ACTIVE', 'PAST_DUE', 'TRIALING', 'PAUSED', 'CANCELLED', 'EXPIRED'] as const;

export interface SubscriptionsView {
  status: string | undefined;
  planId: string | undefined;
  plans: Plan[];
  subscriptions: Subscription[];
  limit: number;
  onFirstPage: boolean;
}

/** Subscriptions, newest first: GET /subscriptions?status=&plan_id=. */
export function subscriptionsPage(frame: Frame, view: SubscriptionsView): string {
  return dashboardPage(
    frame,
    'Subscriptions',
    html`<form method="get" action="/dashboard/subscriptions" class="filters">
        ${select(
          'subscription-status',
          'status',
          'Status',
          [['', 'Any status'], ...SUBSCRIPTION_FILTERS.map((s): [string, string] => [s, s])],
          view.status,
        )}
        ${select(
          'subscription-plan',
          'plan_id',
          'Plan',
          [
            ['', 'Any plan'],
            ...view.plans.map((p): [string, string] => [p.id, `${p.name} (${money(p.amount, p.currency)})`]),
          ],
          view.planId,
        )}
        <button type="submit">Filter</button>
      </form>
      ${table(
        'Subscriptions, newest first',
        ['Customer', 'Plan', 'Status', 'Price', 'Current period', 'Created'],
        view.subscriptions.map((s) => [
          html`${s.customer_email}`,
          html`${s.plan_name}`,
          html`${status(s.status)}${s.cancel_at_period_end ? html` <span class="hint">cancels at period end</span>` : ''}`,
          figure(`${money(s.amount, s.currency)} ${s.interval}`),
          html`${day(s.current_period_start)} to ${day(s.current_period_end)}`,
          html`${day(s.created_at)}`,
        ]),
        'none match.',
      )}
      ${pager('/dashboard/subscriptions', { status: view.status, plan_id: view.planId }, view.subscriptions, view.limit, view.onFirstPage)}`,
  );
}
