import { html } from '@billing/platform';
import type { DeliveryDetail } from '../api-answers';
import { csrfField, dashboardPage, facts, figure, notice, status, table, when, type Frame } from './layout';

/**
 * One delivery as GET /webhooks/deliveries/{id} answers it: every attempt, the payload, and
 * "Resend delivery" for a FAILED one (POST /webhooks/deliveries/{id}/retry: one attempt now).
 */
export function webhookDeliveryPage(frame: Frame, d: DeliveryDetail, done?: string): string {
  return dashboardPage(
    frame,
    `Delivery of ${d.event}`,
    html`${notice(done)}
      <p><a href="/dashboard/webhooks/${d.webhook_id}">All deliveries of this webhook</a></p>
      <section aria-labelledby="delivery-heading">
        <h2 id="delivery-heading">Summary</h2>
        ${facts([
          ['Status', status(d.status)],
          ['Attempts', String(d.attempts)],
          ['Last status code', d.last_status_code === null ? '' : String(d.last_status_code)],
          ['Last error', d.last_error ?? ''],
          ['Created', when(d.created_at)],
          ['Delivered', when(d.delivered_at)],
          ['Next attempt', when(d.next_attempt_at)],
          ['ID (X-Webhook-Id)', d.id],
        ])}
        ${
          d.status === 'FAILED'
            ? html`<form method="post" action="/dashboard/webhooks/deliveries/${d.id}/retry">
                ${csrfField(frame.csrfToken)}
                <button type="submit">Resend delivery</button>
              </form>`
            : ''
        }
      </section>
      <section aria-labelledby="attempts-heading">
        <h2 id="attempts-heading">Attempts</h2>
        ${table(
          'Attempts, in order',
          ['Attempt', 'At', 'Status code', 'Duration', 'Error'],
          d.attempt_log.map((a) => [
            figure(String(a.attempt)),
            html`${when(a.at)}`,
            html`${a.status_code ?? ''}`,
            figure(`${a.duration_ms} ms`),
            html`${a.error ?? ''}`,
          ]),
        )}
      </section>
      <section aria-labelledby="payload-heading">
        <h2 id="payload-heading">Payload</h2>
        <pre class="payload" tabindex="0">${JSON.stringify(d.payload, null, 2)}</pre>
      </section>`,
  );
}
