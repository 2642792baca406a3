import { html } from '@billing/platform';
import type { Delivery, Webhook } from '../api-answers';
import { dashboardPage, figure, pager, select, status, table, when, type Frame } from './layout';

export const DELIVERY_FILTERS = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const;

export interface WebhookDeliveriesView {
  webhook: Webhook;
  status: string | undefined;
  deliveries: Delivery[];
  limit: number;
  onFirstPage: boolean;
}

/** One webhook's deliveries, newest first: GET /webhooks/{id}/deliveries?status=. */
export function webhookDeliveriesPage(frame: Frame, view: WebhookDeliveriesView): string {
  const path = `/dashboard/webhooks/${view.webhook.id}`;
  return dashboardPage(
    frame,
    `Deliveries to ${view.webhook.url}`,
    html`<p><a href="/dashboard/webhooks">All webhooks</a></p>
      <form method="get" action="${path}" class="filters">
        ${select(
          'delivery-status',
          'status',
          'Status',
          [['', 'Any status'], ...DELIVERY_FILTERS.map((s): [string, string] => [s, s])],
          view.status,
        )}
        <button type="submit">Filter</button>
      </form>
      ${table(
        'Deliveries, newest first',
        ['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Next attempt'],
        view.deliveries.map((d) => [
          html`<a href="/dashboard/webhooks/deliveries/${d.id}"
            >${d.event}<span class="visually-hidden"> delivery ${d.id}</span></a
          >`,
          status(d.status),
          figure(String(d.attempts)),
          html`${d.last_status_code ?? ''}${d.last_error ? html` <span class="hint">${d.last_error}</span>` : ''}`,
          html`${when(d.created_at)}`,
          html`${when(d.next_attempt_at)}`,
        ]),
        'none match.',
      )}
      ${pager(path, { status: view.status }, view.deliveries, view.limit, view.onFirstPage)}`,
  );
}
