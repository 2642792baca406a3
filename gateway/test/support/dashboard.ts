import type { Page } from 'playwright-core';

/** The merchant dashboard's cookies (gateway/src/dashboard/dashboard-sessions.ts). */
export const SESSION_COOKIE = 'dashboard_session';
export const SIGN_IN_COOKIE = 'dashboard_sign_in';

/** A Set-Cookie header of `name` among an answer's, whole (with its attributes), or undefined. */
export function setCookieOf(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
}

/** The CSRF token the dashboard's forms carry (the first on the page). */
export function dashboardCsrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1];
}

/**
 * The dashboard over plain HTTP, as a browser without script: one cookie jar of its cookies,
 * redirects not followed (a test reads them).
 */
export interface DashboardHttp {
  cookies: Map<string, string>;
  get(path: string): Promise<Response>;
  post(path: string, form: Record<string, string | string[]>): Promise<Response>;
  /** GET the sign-in page and post it: the answer of the POST. */
  signIn(email: string, password: string): Promise<Response>;
  /** A page's CSRF token (GET `path`, 200). */
  csrf(path?: string): Promise<string>;
}

export function dashboardHttp(gatewayUrl: string): DashboardHttp {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, ...value] = pair.split('=');
      if (/Expires=Thu, 01 Jan 1970/i.test(header) || value.join('=') === '') cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    return res;
  };
  const cookieHeader = (): Record<string, string> =>
    cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  const http: DashboardHttp = {
    cookies,
    get: async (path) => keep(await fetch(new URL(path, gatewayUrl), { redirect: 'manual', headers: cookieHeader() })),
    async post(path, form) {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) {
        for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
      }
      return keep(
        await fetch(new URL(path, gatewayUrl), {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookieHeader() },
          body: body.toString(),
        }),
      );
    },
    async signIn(email, password) {
      const page = await http.get('/dashboard/sign-in');
      if (page.status !== 200) throw new Error(`sign-in page answered ${page.status}`);
      return http.post('/dashboard/sign-in', { csrf_token: dashboardCsrfOf(await page.text()), email, password });
    },
    async csrf(path = '/dashboard/api-keys') {
      const page = await http.get(path);
      if (page.status !== 200) throw new Error(`${path} answered ${page.status}`);
      return dashboardCsrfOf(await page.text());
    },
  };
  return http;
}

/** Signs in on the dashboard's page in a browser, with the keyboard alone: Tab to each field, Enter to send. */
export async function signInWithKeyboard(page: Page, gatewayUrl: string, email: string, password: string) {
  await page.goto(`${gatewayUrl}/dashboard`);
  // The skip link is the first stop, then the fields in order.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await Promise.all([page.waitForURL(`${gatewayUrl}/dashboard`), page.keyboard.press('Enter')]);
}
