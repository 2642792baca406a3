/**
 * @lane timing-critical adds gateway replicas and waits out a session's idle and absolute lifetimes
 */
import { createHash } from 'node:crypto';
import { queryDatabase, type PlatformProcess, type PlatformUnderTest } from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  startGatewayPlatform,
  startGatewayReplica,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { dashboardCsrfOf, dashboardHttp, SESSION_COOKIE, setCookieOf, SIGN_IN_COOKIE } from './support/dashboard';
import { waitFor } from './support/wait';

/**
 * The merchant dashboard's sessions at the HTTP level (docs/api-behaviour.md §3, §17.5, §25): no
 * page without a session, no change without the session's CSRF token, sessions that end, sign-in
 * spending /auth/login's own budgets, only the merchant's own projects, and the cookie's flags.
 */
describe('merchant dashboard security', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let acme: RegisteredMerchant;
  let globex: RegisteredMerchant;
  const replicas: PlatformProcess[] = [];

  /** Another gateway on the same platform (same database, so the same sessions) with `env`. */
  async function replica(env: Record<string, string>): Promise<string> {
    const started = await startGatewayReplica(platform, env);
    replicas.push(started.process);
    return started.url;
  }

  const keysOf = async (m: RegisteredMerchant) =>
    (await api('GET', `/api/v1/api-keys?project_id=${m.projectId}`, { token: m.token })).body as {
      id: string;
      name: string;
      is_active: boolean;
    }[];

  beforeAll(async () => {
    platform = await startGatewayPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, globex] = await Promise.all([registerMerchant(api, 'dash-acme'), registerMerchant(api, 'dash-globex')]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await platform?.stop();
  });

  it('sends a request without a session to the sign-in page, and changes nothing for a POST', async () => {
    const browser = dashboardHttp(platform.gatewayUrl);
    for (const path of ['/dashboard', '/dashboard/customers', '/dashboard/invoices/not-an-id', '/dashboard/nowhere']) {
      const res = await browser.get(path);
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 303, '/dashboard/sign-in']);
    }
    const before = await keysOf(acme);
    const post = await browser.post('/dashboard/api-keys', { name: 'sneaky', csrf_token: 'x' });
    expect([post.status, post.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    // A cookie we never gave is no session either.
    browser.cookies.set(SESSION_COOKIE, 'A'.repeat(43));
    expect((await browser.get('/dashboard/api-keys')).headers.get('location')).toBe('/dashboard/sign-in');
    expect(await keysOf(acme)).toEqual(before);
  });

  it('sets an HttpOnly, SameSite=Strict cookie on /dashboard (Secure on https) kept only hashed, ended by signing out; the pages have their security headers', async () => {
    const browser = dashboardHttp(platform.gatewayUrl);
    const signInPage = await browser.get('/dashboard/sign-in');
    expect(setCookieOf(signInPage, SIGN_IN_COOKIE)).toMatch(/HttpOnly/);
    const signedIn = await browser.signIn(acme.email, acme.password);
    expect([signedIn.status, signedIn.headers.get('location')]).toEqual([303, '/dashboard']);
    const cookie = setCookieOf(signedIn, SESSION_COOKIE)!;
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43};`));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/dashboard/);
    // PUBLIC_URL is http here: a Secure cookie would never come back.
    expect(cookie).not.toMatch(/Secure/);
    // Kept only as its SHA-256; signing out deletes it.
    const token = cookie.split(';')[0].split('=')[1];
    const stored = () =>
      queryDatabase<{ token_hash: string; csrf_token: string }>(
        platform.database('gateway'),
        'SELECT token_hash, csrf_token FROM dashboard_sessions WHERE token_hash = $1 OR token_hash = $2',
        [token, createHash('sha256').update(token, 'utf8').digest('hex')],
      );
    const [row] = await stored();
    expect(row.token_hash).toBe(createHash('sha256').update(token, 'utf8').digest('hex'));

    const page = await browser.get('/dashboard/api-keys');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const body = await page.text();
    expect(body).not.toMatch(/<script>|<script [^>]*>[^<]/);
    // Its script, style and Chart.js come from the gateway itself (no CDN), as files.
    for (const asset of ['dashboard.js', 'chart.umd.min.js', 'dashboard.css']) {
      const res = await fetch(`${platform.gatewayUrl}/dashboard/assets/${asset}`);
      expect([asset, res.status]).toEqual([asset, 200]);
      expect(res.headers.get('content-type')).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/);
    }
    expect(body).not.toMatch(/https?:\/\/[^"]*\.(js|css)"/);

    const signedOut = await browser.post('/dashboard/sign-out', { csrf_token: row.csrf_token });
    expect([signedOut.status, signedOut.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    expect(setCookieOf(signedOut, SESSION_COOKIE)).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(await stored()).toEqual([]);
    browser.cookies.set(SESSION_COOKIE, token);
    expect((await browser.get('/dashboard/api-keys')).headers.get('location')).toBe('/dashboard/sign-in');

    const https = dashboardHttp(await replica({ PUBLIC_URL: 'https://billing.example' }));
    const secure = setCookieOf(await https.signIn(acme.email, acme.password), SESSION_COOKIE)!;
    expect(secure).toMatch(/; Secure/);
    expect(secure).toMatch(/; SameSite=Strict/);
  });

  it('refuses a POST without or with a wrong CSRF token with 403, changing nothing', async () => {
    const browser = dashboardHttp(platform.gatewayUrl);
    await browser.signIn(acme.email, acme.password);
    const csrf = await browser.csrf();
    const before = await keysOf(acme);
    const [victim] = before;

    const forms: Record<string, string>[] = [
      { name: 'no token' },
      { name: 'wrong token', csrf_token: `${csrf.slice(0, -1)}x` },
    ];
    for (const form of forms) {
      const res = await browser.post('/dashboard/api-keys', form);
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain(csrf);
    }
    expect((await browser.post(`/dashboard/api-keys/${victim.id}/revoke`, {})).status).toBe(403);
    const switched = await browser.post('/dashboard/switch', { project_id: acme.projectId, mode: 'test' });
    expect(switched.status).toBe(403);
    expect((await browser.post('/dashboard/sign-out', { csrf_token: 'nope' })).status).toBe(403);
    expect(await keysOf(acme)).toEqual(before);
    // Still signed in, still in live mode.
    expect(await (await browser.get('/dashboard/api-keys')).text()).toContain('Switch to test mode');

    // Another session's token is as foreign as a made-up one.
    const other = dashboardHttp(platform.gatewayUrl);
    await other.signIn(acme.email, acme.password);
    expect((await other.post('/dashboard/api-keys', { name: 'borrowed', csrf_token: csrf })).status).toBe(403);
    // The sign-in form carries its own token: a form posted from elsewhere is refused.
    const forged = dashboardHttp(platform.gatewayUrl);
    const refused = await forged.post('/dashboard/sign-in', { email: acme.email, password: acme.password });
    expect(refused.status).toBe(403);
    expect(setCookieOf(refused, SESSION_COOKIE)).toBeUndefined();

    // With its token, the same form works.
    const created = await browser.post('/dashboard/api-keys', { name: 'with token', csrf_token: csrf });
    expect([created.status, created.headers.get('location')]).toEqual([303, '/dashboard/api-keys?done=created']);
    expect((await keysOf(acme)).map((k) => k.name)).toContain('with token');
  });

  it('ends a session after its idle time and after its absolute lifetime: sign in again', async () => {
    const idle = dashboardHttp(await replica({ DASHBOARD_SESSION_IDLE_SECONDS: '3' }));
    await idle.signIn(acme.email, acme.password);
    expect((await idle.get('/dashboard/api-keys')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 4500));
    const expired = await idle.get('/dashboard/api-keys');
    expect([expired.status, expired.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    // Once ended, it stays ended.
    expect((await idle.get('/dashboard/api-keys')).status).toBe(303);
    const again = await idle.signIn(acme.email, acme.password);
    expect(again.headers.get('location')).toBe('/dashboard');
    expect((await idle.get('/dashboard/api-keys')).status).toBe(200);

    const capped = dashboardHttp(
      await replica({ DASHBOARD_SESSION_IDLE_SECONDS: '60', DASHBOARD_SESSION_MAX_SECONDS: '4' }),
    );
    const started = Date.now();
    await capped.signIn(acme.email, acme.password);
    // Kept busy, it still ends once its lifetime is over.
    await waitFor(
      'the session to reach its absolute expiry',
      async () => (await capped.get('/dashboard/api-keys')).status,
      (status) => status === 303,
      10_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(3500);
  });

  it('ends the session when the merchant is deactivated, and the one a browser had when it signs in again', async () => {
    const browser = dashboardHttp(platform.gatewayUrl);
    await browser.signIn(acme.email, acme.password);
    const first = browser.cookies.get(SESSION_COOKIE)!;
    // Signed in, the sign-in page sends the browser home; a sign-in form still open in another tab posts anyway.
    expect((await browser.get('/dashboard/sign-in')).headers.get('location')).toBe('/dashboard');
    const again = await browser.post('/dashboard/sign-in', {
      csrf_token: browser.cookies.get(SIGN_IN_COOKIE)!,
      email: acme.email,
      password: acme.password,
    });
    expect(again.status).toBe(303);
    const second = browser.cookies.get(SESSION_COOKIE)!;
    expect(second).not.toBe(first);
    expect((await browser.get('/dashboard/api-keys')).status).toBe(200);
    const stale = dashboardHttp(platform.gatewayUrl);
    stale.cookies.set(SESSION_COOKIE, first);
    expect((await stale.get('/dashboard/api-keys')).headers.get('location')).toBe('/dashboard/sign-in');

    const leaving = await registerMerchant(api, 'dash-leaving');
    const session = dashboardHttp(platform.gatewayUrl);
    await session.signIn(leaving.email, leaving.password);
    expect((await session.get('/dashboard/api-keys')).status).toBe(200);
    expect((await api('DELETE', '/api/v1/merchants/me', { token: leaving.token })).status).toBe(204);
    const after = await session.get('/dashboard/api-keys');
    expect([after.status, after.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    // Signing in again is refused as the API's login refuses it.
    expect((await session.signIn(leaving.email, leaving.password)).status).toBe(403);
  });

  it('limits signing in like POST /auth/login: the same per-email budget of failures (429 after 10)', async () => {
    const strictUrl = await replica({
      LOGIN_FAILURES_PER_15_MIN: '10',
      REDIS_KEY_PREFIX: `${platform.runId}-dash-login`,
    });
    const strictApi = gatewayApi(strictUrl);
    const victim = await registerMerchant(api, 'dash-brute');
    const browser = dashboardHttp(strictUrl);
    for (let i = 0; i < 10; i += 1) {
      const wrong = await browser.signIn(victim.email, `wrong-password-${i}`);
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain('Incorrect email or password');
    }
    const right = await browser.signIn(victim.email, victim.password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(setCookieOf(right, SESSION_COOKIE)).toBeUndefined();
    // One budget: the API's login of that email is refused too.
    const viaApi = await strictApi('POST', '/api/v1/auth/login', {
      body: { email: victim.email, password: victim.password },
    });
    expect(viaApi.status).toBe(429);

    // And failures through the API count on the dashboard.
    const other = await registerMerchant(api, 'dash-brute-api');
    for (let i = 0; i < 10; i += 1) {
      const res = await strictApi('POST', '/api/v1/auth/login', {
        body: { email: other.email, password: `nope-${i}` },
      });
      expect(res.status).toBe(401);
    }
    expect((await dashboardHttp(strictUrl).signIn(other.email, other.password)).status).toBe(429);
  });

  it("refuses another merchant's project in the switch (and an unknown one), keeping the session's own", async () => {
    const browser = dashboardHttp(platform.gatewayUrl);
    await browser.signIn(acme.email, acme.password);
    const csrf = await browser.csrf();
    const foreign = await browser.post('/dashboard/switch', {
      csrf_token: csrf,
      project_id: globex.projectId,
      mode: 'test',
      return_to: '/dashboard/api-keys',
    });
    expect(foreign.status).toBe(403);
    const unknown = await browser.post('/dashboard/switch', {
      csrf_token: csrf,
      project_id: '00000000-0000-4000-8000-000000000000',
      mode: 'test',
    });
    expect(unknown.status).toBe(404);
    const page = await (await browser.get('/dashboard/api-keys')).text();
    expect(page).not.toContain(globex.projectId);
    expect(page).toContain('Switch to test mode');
    // Nor can a form name another merchant's key.
    const [globexKey] = await keysOf(globex);
    expect((await browser.post(`/dashboard/api-keys/${globexKey.id}/revoke`, { csrf_token: csrf })).status).toBe(403);
    expect((await keysOf(globex)).find((k) => k.id === globexKey.id)?.is_active).toBe(true);

    // The merchant's own project switches, and the way back is a dashboard page only.
    const own = await browser.post('/dashboard/switch', {
      csrf_token: csrf,
      project_id: acme.projectId,
      mode: 'test',
      return_to: 'https://evil.example/',
    });
    expect([own.status, own.headers.get('location')]).toEqual([303, '/dashboard']);
    expect(await (await browser.get('/dashboard/api-keys')).text()).toContain('Switch to live mode');
    expect(dashboardCsrfOf(await (await browser.get('/dashboard/api-keys')).text())).toBe(csrf);
  });
});
