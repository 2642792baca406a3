import type { Browser, Page } from 'playwright-core';
import { platformEvents, queryDatabase, sharedPlatform } from '@billing/testing';
import type { PlatformEvents, SharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';
import { artifactsFolder, launchChromium } from './support/browser';
import { MerchantSite } from './support/merchant-site';

/** The pages people see in a real browser (Chromium, the sandbox provider); screenshots kept as test artifacts. */
describe('pages in a real browser: the hosted checkout and the API reference', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let site: MerchantSite;
  let browser: Browser;
  let page: Page;
  let events: PlatformEvents;

  beforeAll(async () => {
    site = await new MerchantSite().start();
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'browser');
    events = await platformEvents(platform);
    browser = await launchChromium();
    // On a new machine Chromium may still be installing (support/browser.ts).
  }, 360_000);
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  });
  afterEach(async () => page?.close());
  afterAll(async () => {
    await browser?.close();
    await events?.close();
    await platform?.stop();
    await site?.stop();
  });

  async function newSession(planBody: Record<string, unknown>, apiKey = merchant.testKey) {
    const plan = await api('POST', '/api/v1/plans', { apiKey, body: planBody });
    expect(plan.status).toBe(201);
    const session = await api('POST', '/api/v1/checkout/sessions', {
      apiKey,
      body: { plan_id: plan.body.id, success_url: `${site.url}/thanks`, cancel_url: `${site.url}/cancelled` },
    });
    expect(session.status).toBe(201);
    return session.body;
  }

  /** A new merchant whose legal_name billing has read (its copy of the seller, docs/api-behaviour.md §22). */
  async function merchantWithLegalName(label: string, legalName: string) {
    const seller = await registerMerchant(api, label);
    const res = await api('PATCH', '/api/v1/merchants/me', { token: seller.token, body: { legal_name: legalName } });
    expect(res.status).toBe(200);
    const published = await events.waitFor<{ merchant_id: string; seller: { legal_name: string | null } }>(
      'merchant.seller_details_updated',
      (e) => e.data.merchant_id === seller.id && e.data.seller.legal_name === legalName,
    );
    // Billing's durable consumer of the seller events (services/billing/src/server.ts).
    await events.waitForAcked('billing-seller-details', published.seq);
    return seller;
  }

  /** The seller line's text, and whether it comes before the plan's heading on the page. */
  async function sellerLine() {
    const seller = page.getByTestId('seller');
    const heading = page.getByRole('heading', { level: 1 });
    const [sellerBox, headingBox] = [await seller.boundingBox(), await heading.boundingBox()];
    return {
      text: await seller.textContent(),
      above: sellerBox !== null && headingBox !== null && sellerBox.y + sellerBox.height <= headingBox.y,
    };
  }

  /** `fullPage: false` for a page whose whole length adds nothing (and seconds of PNG encoding). */
  const shot = (name: string, folder = 'checkout', fullPage = true) =>
    page.screenshot({ path: `${artifactsFolder(folder)}/${name}.png`, fullPage });

  it('pays with the sandbox success option and lands on success_url; the API shows it all', async () => {
    const session = await newSession({ name: 'Pro monthly', amount: 5000.5, description: 'Everything in Pro' });
    await page.goto(session.checkout_url);
    await expect(page.getByRole('heading', { name: 'Pro monthly' }).isVisible()).resolves.toBe(true);
    expect(await page.content()).toContain('5,000.50');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel(/Name/).fill('Ada Lovelace');
    await shot('1-checkout-page');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    await shot('2-sandbox-payment-page');
    await page.getByRole('button', { name: /Success/ }).click();
    await page.waitForURL(`${site.url}/thanks`);
    await shot('3-success-url');

    const done = await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: merchant.testKey });
    expect(done.body).toMatchObject({
      status: 'COMPLETED',
      customer_email: 'ada@example.com',
      customer_name: 'Ada Lovelace',
    });
    const customer = await api('GET', `/api/v1/customers/${done.body.customer_id}`, { apiKey: merchant.testKey });
    expect(customer.status).toBe(200);
    expect(customer.body.customer).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace' });
    expect(customer.body.customer.gateway_customer_id).toMatch(/^CUS_/);
    expect(customer.body.subscriptions).toHaveLength(1);
    expect(customer.body.subscriptions[0]).toMatchObject({
      id: done.body.subscription_id,
      plan_name: 'Pro monthly',
      status: 'ACTIVE',
      amount: 5000.5,
      currency: 'NGN',
      interval: 'monthly',
      cancelled_at: null,
    });
    expect(customer.body.invoices).toHaveLength(1);
    expect(customer.body.invoices[0]).toMatchObject({ amount: 5000.5, currency: 'NGN', status: 'PAID' });
    expect(new Date(customer.body.invoices[0].paid_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('shows a declined card on the page and leaves the session PENDING', async () => {
    const session = await newSession({ name: 'Basic', amount: 1500 });
    await page.goto(session.checkout_url);
    await page.getByLabel('Email').fill('declined@example.com');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Declined/ }).click();
    await page.waitForURL(new RegExp(`/checkout/${session.code}/callback`));
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toMatch(/Declined/i);
    await shot('4-declined');
    const after = await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: merchant.testKey });
    expect(after.body.status).toBe('PENDING');
    expect(after.body.subscription_id).toBeNull();
  });

  it('cancels from the hosted page: CANCELLED and lands on cancel_url', async () => {
    const session = await newSession({ name: 'Starter', amount: 100 });
    await page.goto(session.checkout_url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${site.url}/cancelled`);
    await shot('5-cancel-url');
    const after = await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: merchant.testKey });
    expect(after.body.status).toBe('CANCELLED');
  });

  it('shows an expired session as expired, without a form', async () => {
    const session = await newSession({ name: 'Old offer', amount: 100 });
    expect(
      (await api('POST', `/api/v1/checkout/sessions/${session.code}/expire`, { apiKey: merchant.testKey })).status,
    ).toBe(200);
    const response = await page.goto(session.checkout_url);
    expect(response?.status()).toBe(410);
    await expect(page.getByRole('heading', { name: /expired/ }).isVisible()).resolves.toBe(true);
    expect(await page.getByRole('button', { name: 'Pay' }).count()).toBe(0);
    await shot('6-expired');
  });

  it("shows the merchant's legal_name above the plan on its checkout page", async () => {
    const seller = await merchantWithLegalName('legal', 'Ada Lovelace Enterprises Limited');
    const session = await newSession({ name: 'Team yearly', amount: 90000 }, seller.testKey);
    await page.goto(session.checkout_url);
    await expect(sellerLine()).resolves.toEqual({ text: 'Ada Lovelace Enterprises Limited', above: true });
    expect(await page.content()).not.toContain(seller.registration.business_name);
    await shot('7-seller-legal-name');
  });

  it('shows the business_name above the plan when the merchant has no legal_name', async () => {
    const session = await newSession({ name: 'Plus', amount: 2500 });
    await page.goto(session.checkout_url);
    await expect(sellerLine()).resolves.toEqual({ text: merchant.registration.business_name, above: true });
  });

  it('shows a seller name holding HTML characters as text, never as markup', async () => {
    const name = `<em>Smith & Sons</em> "O'Neil" <script>document.title='injected'</script>`;
    const seller = await merchantWithLegalName('markup', name);
    const session = await newSession({ name: 'Escaped', amount: 1000 }, seller.testKey);
    await page.goto(session.checkout_url);
    await expect(sellerLine()).resolves.toEqual({ text: name, above: true });
    expect(await page.locator('em, script').count()).toBe(0);
    await expect(page.title()).resolves.toBe('Subscribe to Escaped');
  });

  it('shows no seller line on a session made before sessions kept the seller', async () => {
    const session = await newSession({ name: 'Legacy', amount: 1000 });
    await queryDatabase(
      platform.database('catalog'),
      'UPDATE checkout_sessions SET seller_name = NULL WHERE code = $1',
      [session.code],
    );
    await page.goto(session.checkout_url);
    await expect(page.getByRole('heading', { name: 'Legacy' }).isVisible()).resolves.toBe(true);
    expect(await page.getByTestId('seller').count()).toBe(0);
  });

  it('serves the API reference at /docs from its own assets, listing every operation of /openapi.json', async () => {
    type Item = Record<string, { operationId?: string }>;
    const document = (await (await fetch(`${platform.gatewayUrl}/openapi.json`)).json()) as {
      paths: Record<string, Item>;
      webhooks: Record<string, Item>;
    };
    const operationIds = [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(operationIds.length).toBeGreaterThan(80);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    await page.setViewportSize({ width: 1280, height: 900 });
    const response = await page.goto(`${platform.gatewayUrl}/docs/`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();
    const listed = await page
      .locator('.opblock-summary-operation-id')
      .evaluateAll((ids) => ids.map((id) => id.textContent?.trim()));
    expect([...listed].sort()).toEqual([...operationIds].sort());
    await shot('api-reference', 'docs', false);
    // No CDN: the machines that run this have no internet, and merchants' networks may not either.
    expect(requested.filter((url) => !url.startsWith(platform.gatewayUrl))).toEqual([]);
  });
});
