import { html } from '@billing/platform';
import type { EmailSettings } from '../api-answers';
import { csrfField, dashboardPage, notice, type Frame } from './layout';

/** Customer emails of the project and mode (GET and PUT /email-settings, docs/api-behaviour.md §24). */
export function emailSettingsPage(frame: Frame, settings: EmailSettings, done?: string): string {
  return dashboardPage(
    frame,
    'Customer emails',
    html`${notice(done)}
      <p>
        When on, the platform emails your customers about their invoices, receipts, failed payments, trial ends,
        cancellations and credit notes, in their language.
      </p>
      <form method="post" action="/dashboard/email-settings" class="stacked">
        ${csrfField(frame.csrfToken)}
        <div class="check">
          <input
            type="checkbox"
            id="emails-enabled"
            name="enabled"
            value="true"
            ${settings.enabled ? html` checked` : ''}
          />
          <label for="emails-enabled">Email customers</label>
        </div>
        <label for="emails-from">From name (optional)</label>
        <input id="emails-from" name="from_name" type="text" maxlength="100" value="${settings.from_name ?? ''}" />
        <label for="emails-reply-to">Reply-To address (optional)</label>
        <input id="emails-reply-to" name="reply_to" type="email" value="${settings.reply_to ?? ''}" />
        <button type="submit">Save email settings</button>
      </form>`,
  );
}
