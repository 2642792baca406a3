import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { createdBody, gatewayApi, merchantCalls, registerMerchant, type Api } from './support/api';
import { accessibilityViolations, launchChromium } from './support/browser';

/**
 * Every page a payer sees passes axe's automated accessibility check (WCAG 2.1 A and AA rules):
 * the hosted checkout with a coupon and taxes, the sandbox provider's payment page, a declined
 * card's answer, and the page of a link that is not valid. Keyboard use is shown where the pages
 * are paid (checkout-promotion-codes-browser.test.ts pays with Tab and Enter alone).
 */
describe('pages pass an automated accessibility check (axe, WCAG 2.1 AA)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const { post } = merchantCalls(() => api);

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    browser = await launchChromium();
  }, 360_000);
  // axe injects its script through the page's own context, which a context of our own gives it.
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
  });
  afterEach(async () => context?.close());
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const violations = () => accessibilityViolations(page);

  /** A hosted checkout of 10,000 NGN with 7.5% exclusive VAT and a 25% coupon redeemed for it. */
  async function taxedCheckout(): Promise<string> {
    const m = await registerMerchant(api, 'a11y');
    const vat = await createdBody(post(m, '/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive: false }));
    const plan = await createdBody(post(m, '/plans', { name: 'Pro', amount: 10_000, tax_rate_ids: [vat.id] }));
    await createdBody(post(m, '/coupons', { code: 'A11Y25', percent_off: 25, duration: 'ONCE' }));
    const session = await createdBody(post(m, '/checkout/sessions', { plan_id: plan.id, coupon_code: 'A11Y25' }));
    return session.checkout_url;
  }

  it('the hosted checkout with a discount and a tax, and the sandbox payment page', async () => {
    await page.goto(await taxedCheckout());
    await expect(page.getByText('VAT 7.5%').isVisible()).resolves.toBe(true);
    expect(await violations()).toEqual([]);

    await page.getByLabel('Email').fill('payer@example.com');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    expect(await violations()).toEqual([]);
  });

  it("a declined card's answer on the hosted checkout", async () => {
    await page.goto(await taxedCheckout());
    await page.getByLabel('Email').fill('declined@example.com');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Declined/ }).click();
    await page.waitForURL(/\/callback/);
    await expect(page.getByRole('alert').isVisible()).resolves.toBe(true);
    expect(await violations()).toEqual([]);
  });

  it('the page of a checkout link that is not valid', async () => {
    const response = await page.goto(`${platform.gatewayUrl}/checkout/cs_not_a_session_of_anyone`);
    expect(response?.status()).toBe(404);
    expect(await violations()).toEqual([]);
  });
});
