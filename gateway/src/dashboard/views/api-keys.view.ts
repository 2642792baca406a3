import { html } from '@billing/platform';
import type { ApiKey } from '../api-answers';
import { csrfField, dashboardPage, day, notice, status, table, when, type Frame } from './layout';

export interface ApiKeysView {
  keys: ApiKey[];
  /** A key just created: its secret, shown on this one page and never again. */
  revealed?: { name: string; key: string };
  notice?: string;
}

/**
 * The project's API keys (GET /api-keys?project_id=, without secrets), a form creating one in the
 * chosen mode (POST /api-keys: the secret shown once), and "Revoke" for each (DELETE /api-keys/{id}).
 */
export function apiKeysPage(frame: Frame, view: ApiKeysView): string {
  const mode = frame.livemode ? 'live' : 'test';
  return dashboardPage(
    frame,
    'API keys',
    html`${notice(view.notice)}
      ${
        view.revealed
          ? html`<section class="secret" aria-labelledby="secret-heading">
              <h2 id="secret-heading">The secret of ${view.revealed.name}</h2>
              <p>Copy it now: it is shown only this once.</p>
              <p><code id="new-key-secret">${view.revealed.key}</code></p>
            </section>`
          : ''
      }
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a ${mode} key</h2>
        <form method="post" action="/dashboard/api-keys" class="stacked">
          ${csrfField(frame.csrfToken)}
          <label for="key-name">Name</label>
          <input id="key-name" name="name" type="text" required maxlength="100" aria-describedby="key-name-hint" />
          <p class="hint" id="key-name-hint">
            What uses the key, e.g. "Production server". A ${mode} key sees only ${mode} data.
          </p>
          <button type="submit">Create key</button>
        </form>
      </section>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys of this project</h2>
        ${table(
          'API keys of this project, newest first',
          ['Name', 'Key', 'Mode', 'State', 'Last used', 'Created', 'Action'],
          view.keys.map((k) => [
            html`${k.name}`,
            html`<code>${k.key_prefix}…${k.last4}</code>`,
            html`${k.is_live ? 'Live' : 'Test'}`,
            status(k.is_active ? 'ACTIVE' : 'DISABLED'),
            html`${when(k.last_used_at)}`,
            html`${day(k.created_at)}`,
            html`<form method="post" action="/dashboard/api-keys/${k.id}/revoke">
              ${csrfField(frame.csrfToken)}
              <button type="submit" class="danger">
                Revoke<span class="visually-hidden"> ${k.name} (…${k.last4})</span>
              </button>
            </form>`,
          ]),
        )}
      </section>`,
  );
}
