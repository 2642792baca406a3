import { formatMoney, html, toMinorUnits, type Currency, type SafeHtml } from '@billing/platform';

/** The dashboard's sections, in the navigation's order: path under /dashboard and name. */
export const SECTIONS = {
  home: { path: '', name: 'Home' },
  customers: { path: '/customers', name: 'Customers' },
  subscriptions: { path: '/subscriptions', name: 'Subscriptions' },
  invoices: { path: '/invoices', name: 'Invoices' },
  plans: { path: '/plans', name: 'Plans' },
  coupons: { path: '/coupons', name: 'Coupons' },
  taxRates: { path: '/tax-rates', name: 'Tax rates' },
  webhooks: { path: '/webhooks', name: 'Webhooks' },
  apiKeys: { path: '/api-keys', name: 'API keys' },
  portal: { path: '/portal-configuration', name: 'Customer portal' },
  emails: { path: '/email-settings', name: 'Customer emails' },
} as const;

export type Section = keyof typeof SECTIONS;

export const sectionPath = (section: Section): string => `/dashboard${SECTIONS[section].path}`;

/** What every signed-in page shows around its content: who, which project and mode, the navigation. */
export interface Frame {
  merchantName: string;
  merchantEmail: string;
  projects: { id: string; name: string }[];
  projectId: string;
  livemode: boolean;
  csrfToken: string;
  section: Section;
}

const ASSETS = '/dashboard/assets';

function shell(title: string, body: SafeHtml, scripts: string[] = []): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · Dashboard</title>
        <link rel="stylesheet" href="${ASSETS}/dashboard.css" />
        ${scripts.map((name) => html`<script src="${ASSETS}/${name}" defer></script>`)}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        ${body}
      </body>
    </html>`.markup;
}

/** The hidden field of every form: the session's CSRF synchronizer token. */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}" />`;

function switches(frame: Frame): SafeHtml {
  const back = sectionPath(frame.section);
  const project = frame.projects.find((p) => p.id === frame.projectId);
  return html`<div class="switches">
    <form method="post" action="/dashboard/switch" class="inline">
      ${csrfField(frame.csrfToken)}
      <input type="hidden" name="return_to" value="${back}" />
      <input type="hidden" name="mode" value="${frame.livemode ? 'live' : 'test'}" />
      <label for="project-switch">Project</label>
      <select id="project-switch" name="project_id">
        ${frame.projects.map(
          (p) => html`<option value="${p.id}" ${p.id === frame.projectId ? html` selected` : ''}>${p.name}</option>`,
        )}
      </select>
      <button type="submit" class="secondary">Switch project</button>
    </form>
    <form method="post" action="/dashboard/switch" class="inline">
      ${csrfField(frame.csrfToken)}
      <input type="hidden" name="return_to" value="${back}" />
      <input type="hidden" name="project_id" value="${frame.projectId}" />
      <input type="hidden" name="mode" value="${frame.livemode ? 'test' : 'live'}" />
      <span class="mode ${frame.livemode ? 'live' : 'test'}">${frame.livemode ? 'Live mode' : 'Test mode'}</span>
      <button type="submit" class="secondary">${frame.livemode ? 'Switch to test mode' : 'Switch to live mode'}</button>
    </form>
    <form method="post" action="/dashboard/sign-out" class="inline">
      ${csrfField(frame.csrfToken)}
      <button type="submit" class="secondary">Sign out</button>
    </form>
    <p class="who">${frame.merchantName} (${frame.merchantEmail})${project ? html` · ${project.name}` : ''}</p>
  </div>`;
}

/** A signed-in page: header with the switches, the navigation, the content in <main>. */
export function dashboardPage(frame: Frame, title: string, content: SafeHtml, scripts: string[] = []): string {
  return shell(
    title,
    html`<header class="top">
        <p class="brand"><a href="/dashboard">Billing dashboard</a></p>
        ${switches(frame)}
      </header>
      ${frame.livemode ? '' : html`<p class="test-banner" role="note">Test mode: test data only, no real money moves.</p>`}
      <nav aria-label="Dashboard">
        <ul>
          ${(Object.keys(SECTIONS) as Section[]).map(
            (section) =>
              html`<li>
                <a href="${sectionPath(section)}" ${section === frame.section ? html` aria-current="page"` : ''}
                  >${SECTIONS[section].name}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      <main id="main" tabindex="-1">
        <h1>${title}</h1>
        ${content}
      </main>`,
    scripts,
  );
}

/** A page before sign-in (the sign-in form, a refusal without a session). */
export function signedOutPage(title: string, content: SafeHtml): string {
  return shell(
    title,
    html`<header class="top"><p class="brand">Billing dashboard</p></header>
      <main id="main" tabindex="-1" class="narrow">
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}

/** An amount as the API gives it (major units) written as documents write it (docs/api-behaviour.md §22). */
export const money = (amount: number, currency: string): string =>
  formatMoney(toMinorUnits(amount), currency as Currency, 'en');

const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});
const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

export const when = (iso: string | null | undefined): string => (iso ? `${DATE_TIME.format(new Date(iso))} UTC` : '');
export const day = (iso: string | null | undefined): string => (iso ? DATE.format(new Date(iso)) : '');

/** A table with a caption and column headers; a row per item, or a line saying there is none. */
export function table(caption: string, headers: string[], rows: SafeHtml[][], empty = 'None yet.'): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${caption}: ${empty}</p>`;
  return html`<div class="table-wrap">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${headers.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (cells) =>
            html`<tr>
              ${cells.map((c) => html`<td>${c}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A figure cell: right-aligned digits. */
export const figure = (text: string) => html`<span class="figure">${text}</span>`;

/** A definition list of label and value pairs; empty values are left out. */
export function facts(pairs: [string, SafeHtml | string][]): SafeHtml {
  return html`<dl class="facts">
    ${pairs
      .filter(([, value]) => value !== '')
      .map(
        ([label, value]) =>
          html`<div>
            <dt>${label}</dt>
            <dd>${value}</dd>
          </div>`,
      )}
  </dl>`;
}

/** The API's enumerations as they are (ACTIVE, PAID), set apart. */
export const status = (value: string) => html`<span class="status status-${value.toLowerCase()}">${value}</span>`;

/**
 * Paging of the API's lists (docs/api-behaviour.md §1: `limit` and `starting_after`, newest first):
 * "Next page" after a full page, "First page" when not on it. `query` is the page's filters.
 */
export function pager(
  path: string,
  query: Record<string, string | undefined>,
  items: { id: string }[],
  limit: number,
  onFirstPage: boolean,
): SafeHtml {
  const link = (startingAfter?: string) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
    if (startingAfter) params.set('starting_after', startingAfter);
    const search = params.toString();
    return `${path}${search ? `?${search}` : ''}`;
  };
  const last = items[items.length - 1];
  const next = items.length >= limit && last ? html`<a href="${link(last.id)}" rel="next">Next page</a>` : '';
  const first = onFirstPage ? '' : html`<a href="${link()}">First page</a>`;
  return next || first ? html`<nav class="pager" aria-label="Pages">${first}${next}</nav>` : html``;
}

/** A one-line notice after a change (role status: read out by screen readers). */
export const notice = (text: string | undefined) => (text ? html`<p class="notice" role="status">${text}</p>` : html``);

/** A select of options (value and label), one of them chosen. */
export function select(
  id: string,
  name: string,
  label: string,
  options: [string, string][],
  chosen: string | undefined,
): SafeHtml {
  return html`<label for="${id}">${label}</label>
    <select id="${id}" name="${name}">
      ${options.map(
        ([value, text]) =>
          html`<option value="${value}" ${value === (chosen ?? '') ? html` selected` : ''}>${text}</option>`,
      )}
    </select>`;
}
