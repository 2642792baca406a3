import { html } from '@billing/platform';
import type { Webhook } from '../api-answers';
import { dashboardPage, day, status, table, type Frame } from './layout';

/** Webhooks of the project and mode: GET /webhooks; each leads to its deliveries. */
export function webhooksPage(frame: Frame, webhooks: Webhook[]): string {
  return dashboardPage(
    frame,
    'Webhooks',
    table(
      'Webhooks',
      ['URL', 'Events', 'State', 'Created'],
      webhooks.map((w) => [
        html`<a href="/dashboard/webhooks/${w.id}">${w.url}</a
          >${w.description ? html`<br /><span class="hint">${w.description}</span>` : ''}`,
        html`${w.events.join(', ')}`,
        status(w.is_active ? 'ACTIVE' : 'INACTIVE'),
        html`${day(w.created_at)}`,
      ]),
    ),
  );
}
