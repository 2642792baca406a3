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
