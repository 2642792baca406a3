import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { csrfOf, openPortal, portalBrowser, portalSessionUrl } from './support/portal';

/**
 * docs/api-behaviour.md §24: a portal link opens one customer's portal once; everything else (a
 * used or forged link, no cookie, a missing or foreign CSRF token, another customer's id) is
 * refused, changes nothing and shows nothing of any customer.
 */
describe('customer portal security', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: RegisteredMerchant;
  let ada: PaidCheckout;
  let bola: PaidCheckout;
  const { post, get } = merchantCalls(() => api);

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    acme = await registerMerchant(api, 'portal-security');
    const plan = await createdBody(post(acme, '/plans', { name: 'Pro', amount: 5000 }));
    [ada, bola] = await Promise.all([
      payHostedCheckout(api, platform.gatewayUrl, acme.testKey, plan.id, 'ada'),
      payHostedCheckout(api, platform.gatewayUrl, acme.testKey, plan.id, 'bola'),
    ]);
  });
  afterAll(() => platform?.stop());

  /** What must not be on a refusal's page: either customer's e-mail or subscription. */
  const namesNobody = (html: string) => {
    for (const secret of [ada.email, bola.email, ada.subscriptionId, bola.subscriptionId, 'csrf_token']) {
      expect(html).not.toContain(secret);
    }
  };
  const subscriptionOf = async (id: string) => (await get(acme, `/subscriptions/${id}`)).body;

  it('opens the portal once (a HEAD aside): the link sets an HttpOnly SameSite=Lax cookie and redirects home; a second open is the expired page', async () => {
    const url = await portalSessionUrl(api, acme, ada.customerId);
    // A link preview's HEAD does not use it up.
    const preview = await fetch(url, { method: 'HEAD', redirect: 'manual' });
    expect([preview.status, preview.headers.getSetCookie()]).toEqual([200, []]);
    const first = await fetch(url, { redirect: 'manual' });
    expect([first.status, first.headers.get('location')]).toEqual([303, '/portal']);
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith('portal_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/portal/);
    // PUBLIC_URL is http here: Secure would keep the cookie from ever coming back.
    expect(cookie).not.toMatch(/Secure/);

    const again = await fetch(url, { redirect: 'manual' });
    const html = await again.text();
    expect(again.status).toBe(401);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(html).toContain('This link has expired');
    namesNobody(html);
  });

  it('shows only the expired page for a forged session token and a forged entry link', async () => {
    for (const path of [
      '/portal/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '/portal/s/not-a-token',
      '/portal/enter/0123.1.abc.999999999999.xyz',
    ]) {
      const res = await fetch(`${platform.gatewayUrl}${path}`, { redirect: 'manual' });
      const html = await res.text();
      expect([path, res.status]).toEqual([path, 401]);
      expect(html).toContain('This link has expired');
      namesNobody(html);
    }
  });

  it('answers every page and action 401 without a live session, and changes nothing', async () => {
    const browser = portalBrowser(platform.gatewayUrl, 'portal_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const home = await browser.get('/portal');
    const cancel = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/cancel/confirm`, {
      csrf_token: 'x',
    });
    const noCookie = await portalBrowser(platform.gatewayUrl).post('/portal/billing-details/confirm', { name: 'Eve' });
    expect([home.status, cancel.status, noCookie.status]).toEqual([401, 401, 401]);
    namesNobody(await home.text());
    expect((await subscriptionOf(ada.subscriptionId)).cancel_at_period_end).toBe(false);
  });

  it("refuses a form without the CSRF token or with another session's (403), and nothing changes", async () => {
    const { browser } = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const other = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const foreignToken = csrfOf(other.home);

    const missing = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/cancel/confirm`, {});
    const foreign = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/cancel/confirm`, {
      csrf_token: foreignToken,
    });
    const details = await browser.post('/portal/billing-details/confirm', {
      csrf_token: foreignToken,
      name: 'Mallory',
    });
    expect([missing.status, foreign.status, details.status]).toEqual([403, 403, 403]);
    expect((await subscriptionOf(ada.subscriptionId)).cancel_at_period_end).toBe(false);
    expect((await get(acme, `/customers/${ada.customerId}`)).body.name).not.toBe('Mallory');
  });

  it("answers 404 to another customer's subscription id in a URL or form, and nothing changes", async () => {
    const { browser, home } = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const csrf = csrfOf(home);
    expect(home).toContain(ada.subscriptionId);
    expect(home).not.toContain(bola.subscriptionId);

    const review = await browser.post(`/portal/subscriptions/${bola.subscriptionId}/cancel`, { csrf_token: csrf });
    const confirm = await browser.post(`/portal/subscriptions/${bola.subscriptionId}/cancel/confirm`, {
      csrf_token: csrf,
    });
    const change = await browser.post(`/portal/subscriptions/${bola.subscriptionId}/change-plan`, { csrf_token: csrf });
    const card = await browser.post('/portal/card', { csrf_token: csrf, subscription_id: bola.subscriptionId });
    expect([review.status, confirm.status, change.status, card.status]).toEqual([404, 404, 404, 404]);
    namesNobody(await confirm.text());
    expect((await subscriptionOf(bola.subscriptionId)).cancel_at_period_end).toBe(false);
    expect((await subscriptionOf(bola.subscriptionId)).status).toBe('ACTIVE');
  });

  it("answers 404 to a plan the configuration does not offer (another project's, or none), and nothing changes", async () => {
    const [basic, pro] = await Promise.all([
      createdBody(post(acme, '/plans', { name: 'Basic', amount: 1000 })),
      createdBody(post(acme, '/plans', { name: 'Pro', amount: 9000 })),
    ]);
    const configured = await api('PUT', '/api/v1/portal/configuration', {
      apiKey: acme.testKey,
      body: {
        cancellation: 'AT_PERIOD_END',
        plan_change: { enabled: true, plan_ids: [basic.id, pro.id], proration: 'IMMEDIATE' },
        payment_method_update: true,
        billing_details_update: true,
      },
    });
    expect(configured.status).toBe(200);
    const other = await registerMerchant(api, 'portal-security-other');
    const theirs = await createdBody(post(other, '/plans', { name: 'Theirs', amount: 10 }));
    const unoffered = await createdBody(post(acme, '/plans', { name: 'Secret', amount: 1 }));
    const { browser, home } = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const csrf = csrfOf(home);
    for (const planId of [theirs.id, unoffered.id, 'not-an-id']) {
      const review = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/change-plan`, {
        csrf_token: csrf,
        plan_id: planId,
      });
      const confirm = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/change-plan/confirm`, {
        csrf_token: csrf,
        plan_id: planId,
      });
      expect([planId, review.status, confirm.status]).toEqual([planId, 404, 404]);
    }
    expect((await subscriptionOf(ada.subscriptionId)).plan_id).not.toBe(unoffered.id);
  });

  it("a portal cookie replayed on another customer's used link opens nothing and shows neither customer", async () => {
    const { browser: adas } = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const bolasUrl = await portalSessionUrl(api, acme, bola.customerId);
    await openPortal(platform.gatewayUrl, bolasUrl);

    const replayed = await adas.get(bolasUrl);
    const html = await replayed.text();
    expect(replayed.status).toBe(401);
    namesNobody(html);
    // Ada's cookie still opens Ada's portal only.
    const home = await (await adas.get('/portal')).text();
    expect(home).toContain(ada.email);
    expect(home).not.toContain(bola.email);
  });

  it("opens a fresh session from a customer email's entry link (PortalLinks)", async () => {
    const { PortalLinks } = await import('@billing/platform');
    const key = platform.env.PORTAL_LINKS_KEY;
    const token = new PortalLinks([key]).tokenOf({
      projectId: acme.projectId,
      livemode: false,
      customerId: ada.customerId,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const browser = portalBrowser(platform.gatewayUrl);
    const entered = await browser.get(`/portal/enter/${token}`);
    expect([entered.status, entered.headers.get('location')]).toEqual([303, '/portal']);
    const home = await (await browser.get('/portal')).text();
    expect(home).toContain(ada.email);

    const expired = new PortalLinks([key]).tokenOf({
      projectId: acme.projectId,
      livemode: false,
      customerId: ada.customerId,
      expiresAt: new Date(Date.now() - 1000),
    });
    const refused = await portalBrowser(platform.gatewayUrl).get(`/portal/enter/${expired}`);
    expect(refused.status).toBe(401);
    namesNobody(await refused.text());
  });
});
