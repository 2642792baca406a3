/** Text into HTML: every value a server-rendered page shows goes through this. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * The headers of every page the platform serves to customers (hosted checkout, invoice pages,
 * portal): a page's URL may be a capability, so it is never cached, framed or sent on as a
 * referrer, and a page runs no script and loads nothing from elsewhere.
 */
export const CUSTOMER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
};

/** Markup already escaped (or written by us): `html` puts it in as it is. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

function markupOf(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(markupOf).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/**
 * A template of a page: every interpolated value is escaped, unless it is SafeHtml (another
 * template's result) or a list of them; null, undefined and false write nothing, so
 * `${cond && html`...`}` reads naturally.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0];
  values.forEach((value, index) => {
    markup += markupOf(value) + strings[index + 1];
  });
  return new SafeHtml(markup);
}
