import { queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { openPortal, portalBrowser, portalSessionUrl } from './support/portal';

const LINK_SECONDS = 2;
const IDLE_SECONDS = 3;
const PORTAL_BUDGET = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * docs/api-behaviour.md §24 with the lifetimes shortened (PORTAL_LINK_TTL_SECONDS,
 * PORTAL_IDLE_TTL_SECONDS; 10 minutes and 1 hour otherwise) and a small per-address budget: a
 * link not opened in time, and a browser session left idle, show the expired page and nothing
 * else; too many requests from one address are refused with 429.
 */
describe('customer portal: expired links, idle sessions and the per-address limit', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let acme: RegisteredMerchant;
  let ada: PaidCheckout;
  const { post, get } = merchantCalls(() => api);

  beforeAll(async () => {
    platform = await startPlatform({
      // What a paid checkout and the portal reach; the settings are the portal's and the gateway's.
      only: ['identity', 'sandbox-provider', 'billing', 'catalog', 'portal', 'gateway'],
      env: {
        PORTAL_LINK_TTL_SECONDS: String(LINK_SECONDS),
        PORTAL_IDLE_TTL_SECONDS: String(IDLE_SECONDS),
        PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS: String(PORTAL_BUDGET),
        PORTAL_SESSION_PURGE_MS: '500',
      },
    });
    api = gatewayApi(platform.gatewayUrl);
    acme = await registerMerchant(api, 'portal-expiry');
    const plan = await createdBody(post(acme, '/plans', { name: 'Pro', amount: 5000 }));
    ada = await payHostedCheckout(api, platform.gatewayUrl, acme.testKey, plan.id, 'ada');
  }, 180_000);
  afterAll(() => platform?.stop());

  it('shows only the expired page for a link opened after its lifetime', async () => {
    const url = await portalSessionUrl(api, acme, ada.customerId);
    await sleep(LINK_SECONDS * 1000 + 500);
    const res = await fetch(url, { redirect: 'manual' });
    const html = await res.text();
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(html).toContain('This link has expired');
    expect(html).not.toContain(ada.email);
  });

  it('ends a browser session left idle: the page and every action 401, nothing changes', async () => {
    const { browser, home } = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    expect(home).toContain(ada.email);
    // Used within its idle time, it stays alive.
    await sleep(IDLE_SECONDS * 500);
    expect((await browser.get('/portal')).status).toBe(200);
    await sleep(IDLE_SECONDS * 1000 + 500);
    const page = await browser.get('/portal');
    const html = await page.text();
    const cancel = await browser.post(`/portal/subscriptions/${ada.subscriptionId}/cancel/confirm`, {
      csrf_token: /name="csrf_token" value="([^"]+)"/.exec(home)![1],
    });
    expect([page.status, cancel.status]).toEqual([401, 401]);
    expect(html).not.toContain(ada.email);
    expect((await get(acme, `/subscriptions/${ada.subscriptionId}`)).body.cancel_at_period_end).toBe(false);
  });

  it('deletes the sessions that can never be used again: an unopened link past its lifetime, an idle one', async () => {
    const unopened = await createdBody(post(acme, '/portal/sessions', { customer_id: ada.customerId }));
    const opened = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acme, ada.customerId));
    const idsLeft = async () =>
      (await queryDatabase<{ id: string }>(platform.database('portal'), 'SELECT id FROM portal_sessions')).map(
        (r) => r.id,
      );
    expect(await idsLeft()).toContain(unopened.id);
    await sleep((IDLE_SECONDS + 1) * 1000 + 500);
    expect(await idsLeft()).toEqual([]);
    expect((await opened.browser.get('/portal')).status).toBe(401);
  });

  it('refuses portal requests past the per-address budget with 429 and Retry-After', async () => {
    const browser = portalBrowser(platform.gatewayUrl);
    const statuses: number[] = [];
    for (let i = 0; i < PORTAL_BUDGET + 5; i += 1) {
      const res = await browser.get('/portal/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      await res.text();
    }
    // Last in the suite: the address's budget is spent.
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status !== 429).every((status) => status === 401)).toBe(true);
  });
});
