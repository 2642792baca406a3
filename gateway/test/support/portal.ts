import { createdBody, merchantCalls, type Api, type RegisteredMerchant } from './api';
import { payHostedCheckout, type PaidCheckout } from './hosted-checkout';

/** A browser of the customer portal over plain HTTP: one cookie jar of the portal's one cookie. */
export interface PortalBrowser {
  cookie: string | null;
  get(path: string): Promise<Response>;
  post(path: string, form: Record<string, string>): Promise<Response>;
}

/** The cookie a portal answer set (`portal_session=...`), or null. */
export function portalCookieOf(res: Response): string | null {
  const cookie = res.headers.getSetCookie().find((value) => value.startsWith('portal_session='));
  return cookie ? cookie.split(';')[0] : null;
}

export function portalBrowser(gatewayUrl: string, cookie: string | null = null): PortalBrowser {
  const browser: PortalBrowser = {
    cookie,
    async get(path) {
      const res = await fetch(new URL(path, gatewayUrl), {
        redirect: 'manual',
        headers: browser.cookie ? { cookie: browser.cookie } : {},
      });
      browser.cookie = portalCookieOf(res) ?? browser.cookie;
      return res;
    },
    async post(path, form) {
      return fetch(new URL(path, gatewayUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(browser.cookie ? { cookie: browser.cookie } : {}),
        },
        body: new URLSearchParams(form).toString(),
      });
    },
  };
  return browser;
}

/** The CSRF token the portal's forms carry. */
export function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1];
}

/** A portal session of `customerId` created with the API: its URL. */
export async function portalSessionUrl(api: Api, m: RegisteredMerchant, customerId: string, body = {}) {
  const { post } = merchantCalls(() => api);
  const session = await createdBody(post(m, '/portal/sessions', { customer_id: customerId, ...body }));
  return session.url as string;
}

/** Opens a session URL as a browser does: the cookie, and the home page it redirects to. */
export async function openPortal(gatewayUrl: string, url: string): Promise<{ browser: PortalBrowser; home: string }> {
  const browser = portalBrowser(gatewayUrl);
  const opened = await browser.get(url);
  if (opened.status !== 303) throw new Error(`session URL answered ${opened.status}`);
  const home = await browser.get(opened.headers.get('location')!);
  if (home.status !== 200) throw new Error(`portal home answered ${home.status}`);
  return { browser, home: await home.text() };
}

/** A merchant's customer with a paid subscription of a fresh plan (and a saved card). */
export async function subscribedCustomer(
  api: Api,
  gatewayUrl: string,
  m: RegisteredMerchant,
  planId: string,
  label: string,
): Promise<PaidCheckout> {
  return payHostedCheckout(api, gatewayUrl, m.testKey, planId, label);
}
