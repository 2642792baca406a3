import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import type { SandboxControlsClient } from '@billing/payments';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type Json, type RegisteredMerchant } from './support/api';
import { artifactsFolder, launchChromium } from './support/browser';
import { MerchantSite } from './support/merchant-site';
import { sandboxControlsOf } from './support/test-clock';

/**
 * The hosted checkout's "Promotion code" field in a real browser (Chromium, the sandbox provider):
 * a code re-prices the page before Pay, refusals are shown in words, and the sandbox is charged the
 * discounted price (docs/api-behaviour.md §19); with tax rates the page shows each tax and charges
 * billing's quote of the first invoice (§21). Screenshots kept as test artifacts.
 */
describe('promotion codes and taxes on the hosted checkout page, in a real browser', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let sandbox: SandboxControlsClient;
  let site: MerchantSite;
  let browser: Browser;
  let page: Page;
  let planId: string;

  beforeAll(async () => {
    site = await new MerchantSite().start();
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
    merchant = await registerMerchant(api, 'promo-browser');
    browser = await launchChromium();
    const plan = await post('/plans', { name: 'Studio monthly', amount: 10000 });
    planId = plan.body.id;
    for (const body of [
      { code: 'WELCOME25', percent_off: 25, duration: 'REPEATING', duration_in_periods: 3 },
      { code: 'TENOFF', percent_off: 10, duration: 'ONCE' },
      { code: 'OLDCODE', percent_off: 50, duration: 'ONCE' },
    ]) {
      expect((await post('/coupons', body)).status).toBe(201);
    }
    const old = (await get('/coupons')).body.find((c: Json) => c.code === 'OLDCODE');
    expect((await api('DELETE', `/api/v1/coupons/${old.id}`, { apiKey: merchant.testKey })).status).toBe(204);
    // On a new machine Chromium may still be installing (support/browser.ts).
  }, 360_000);
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 390, height: 900 } });
  });
  afterEach(async () => page?.close());
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await site?.stop();
  });

  function post(path: string, body: unknown) {
    return api('POST', `/api/v1${path}`, { apiKey: merchant.testKey, body });
  }
  function get(path: string) {
    return api('GET', `/api/v1${path}`, { apiKey: merchant.testKey });
  }
  const coupon = async (code: string) => (await get('/coupons')).body.find((c: Json) => c.code === code);
  const shot = (name: string) =>
    page.screenshot({ path: `${artifactsFolder('checkout-promotion-codes')}/${name}.png`, fullPage: true });

  async function newSession(taxRateIds: string[] = []) {
    const session = await post('/checkout/sessions', {
      plan_id: planId,
      allow_promotion_codes: true,
      success_url: `${site.url}/thanks`,
      tax_rate_ids: taxRateIds,
    });
    expect(session.status).toBe(201);
    expect(session.body).toMatchObject({ allow_promotion_codes: true, coupon_code: null, amount_subtotal: 10000 });
    return session.body;
  }

  async function applyCode(code: string) {
    await page.getByLabel('Promotion code').fill(code);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForLoadState();
  }

  it('refuses unknown and inactive codes in words, applies a good one, re-prices, and Pay charges the discounted price', async () => {
    const session = await newSession();
    const email = `promo-${randomUUID().slice(0, 8)}@example.com`;
    await page.goto(session.checkout_url);
    await expect(page.locator('.price').textContent()).resolves.toMatch(/^NGN\s10,000\.00 every month$/);
    expect(await page.getByTestId('total').count()).toBe(0);
    await page.getByLabel('Email').fill(email);
    await shot('1-promotion-code-field');

    await applyCode('nosuch');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The coupon code NOSUCH does not exist.');
    // What the payer typed survives the round trip.
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);
    await shot('2-unknown-code');
    await applyCode('oldcode');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The coupon OLDCODE is no longer active.');
    expect((await get(`/checkout/sessions/${session.code}`)).body.coupon_code).toBeNull();

    await applyCode('welcome25');
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Promotion code WELCOME25 applied');
    await expect(page.getByTestId('original-price').textContent()).resolves.toMatch(/^NGN\s10,000\.00$/);
    await expect(page.getByTestId('discount').textContent()).resolves.toMatch(/^−NGN\s2,500\.00$/);
    await expect(page.getByTestId('total').textContent()).resolves.toMatch(/^NGN\s7,500\.00$/);
    await expect(page.getByText('WELCOME25: 25% off for the first 3 payments').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);
    await shot('3-code-applied');
    expect((await get(`/checkout/sessions/${session.code}`)).body).toMatchObject({
      coupon_code: 'WELCOME25',
      amount_subtotal: 10000,
      amount_discount: 2500,
      amount_total: 7500,
    });
    expect((await coupon('WELCOME25')).times_redeemed).toBe(1);

    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    await shot('4-sandbox-page');
    await page.getByRole('button', { name: /Success/ }).click();
    await page.waitForURL(`${site.url}/thanks`);

    const paid = (await sandbox.ledger({ email })).transactions.filter((t) => t.status === 'success');
    expect(paid.map((t) => [t.amount, t.currency])).toEqual([[750000, 'NGN']]);
    const done = (await get(`/checkout/sessions/${session.code}`)).body;
    expect(done.status).toBe('COMPLETED');
    const invoices = (await get(`/invoices?subscription_id=${done.subscription_id}`)).body;
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({
      status: 'PAID',
      subtotal: 10000,
      discount: 2500,
      amount: 7500,
      amount_paid: 7500,
    });
    expect(invoices[0].lines.map((l: Json) => [l.type, l.amount, l.description])).toEqual([
      ['SUBSCRIPTION', 10000, 'Studio monthly'],
      ['DISCOUNT', -2500, 'WELCOME25 (25% off)'],
    ]);
    const subscription = (await get(`/subscriptions/${done.subscription_id}`)).body;
    expect(subscription.discount).toMatchObject({ code: 'WELCOME25', ends_after_periods_remaining: 2 });
    expect((await coupon('WELCOME25')).times_redeemed).toBe(1);
  });

  it('replaces one code with another, and fixes the price once a payment has started', async () => {
    const session = await newSession();
    await page.goto(session.checkout_url);
    await page.getByLabel('Email').fill(`promo-${randomUUID().slice(0, 8)}@example.com`);
    await applyCode('TENOFF');
    await expect(page.getByTestId('total').textContent()).resolves.toMatch(/9,000\.00$/);
    const before = (await coupon('WELCOME25')).times_redeemed;
    await applyCode('WELCOME25');
    await expect(page.getByTestId('total').textContent()).resolves.toMatch(/7,500\.00$/);
    expect((await coupon('WELCOME25')).times_redeemed).toBe(before + 1);
    // TENOFF's redemption for this session was given back when WELCOME25 replaced it.
    expect((await coupon('TENOFF')).times_redeemed).toBe(0);

    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/pay\//);
    await page.goto(session.checkout_url);
    await applyCode('TENOFF');
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'A payment of this checkout has already started, so its price can no longer change',
    );
    await expect(page.getByTestId('total').textContent()).resolves.toMatch(/7,500\.00$/);
    await shot('5-price-fixed');
    expect((await get(`/checkout/sessions/${session.code}`)).body.coupon_code).toBe('WELCOME25');
  });

  /** Applies WELCOME25 on a taxed session's page and pays it with the keyboard alone. */
  async function payTaxedWithCode(inclusive: boolean, name: string) {
    const rate = await post('/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive });
    expect(rate.status).toBe(201);
    const session = await newSession([rate.body.id]);
    const email = `tax-${randomUUID().slice(0, 8)}@example.com`;
    await page.goto(session.checkout_url);
    await page.getByLabel('Email').fill(email);
    await applyCode('WELCOME25');
    await shot(name);
    const row = (testId: string) => page.getByTestId(testId).textContent();
    const figures = [
      await row('original-price'),
      await row('discount'),
      await row('tax-name'),
      await row('tax'),
      await row('total'),
    ];
    // Pay from the keyboard: Tab moves from the promotion code's Apply to Pay, Enter presses it.
    await page.getByRole('button', { name: 'Apply' }).focus();
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').textContent()).resolves.toBe('Pay');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Success/ }).click();
    await page.waitForURL(`${site.url}/thanks`);
    const charged = (await sandbox.ledger({ email })).transactions.filter((t) => t.status === 'success');
    const done = (await get(`/checkout/sessions/${session.code}`)).body;
    const [invoice] = (await get(`/invoices?subscription_id=${done.subscription_id}`)).body;
    return { rate: rate.body.id, figures, charged: charged.map((t) => [t.amount, t.currency]), invoice };
  }

  // §21's example on the page: 10,000 NGN, 25% off, 7.5% VAT, exclusive then inclusive. The page's
  // figures, the sandbox's charge and the first invoice are the same numbers.
  it.each([
    {
      title: 'an exclusive 7.5% VAT shows 10,000, 2,500, "VAT 7.5%" 562.50 and 8,062.50 and charges 8,062.50',
      inclusive: false,
      taxRow: ['VAT 7.5%', 'NGN 562.50', 'NGN 8,062.50'],
      charged: 806250,
      invoice: { tax: 562.5, total_excluding_tax: 7500, amount: 8062.5, taxable: 7500 },
    },
    {
      title: 'an inclusive 7.5% VAT shows "VAT 7.5% incl." 523.26 and 7,500 and charges 7,500',
      inclusive: true,
      taxRow: ['VAT 7.5% incl.', 'NGN 523.26', 'NGN 7,500.00'],
      charged: 750000,
      invoice: { tax: 523.26, total_excluding_tax: 6976.74, amount: 7500, taxable: 6976.74 },
    },
  ])('§21 on the page: $title; the first invoice equals the page', async ({ inclusive, taxRow, charged, invoice }) => {
    const paid = await payTaxedWithCode(inclusive, inclusive ? '7-inclusive-vat' : '6-exclusive-vat');
    expect(paid.figures.map((f) => f?.replace(/\s/g, ' '))).toEqual(['NGN 10,000.00', '−NGN 2,500.00', ...taxRow]);
    expect(paid.charged).toEqual([[charged, 'NGN']]);
    expect(paid.invoice).toMatchObject({
      status: 'PAID',
      subtotal: 10000,
      discount: 2500,
      tax: invoice.tax,
      total_excluding_tax: invoice.total_excluding_tax,
      amount: invoice.amount,
      amount_paid: invoice.amount,
      total_tax_amounts: [
        {
          tax_rate_id: paid.rate,
          display_name: 'VAT',
          percentage: 7.5,
          inclusive,
          taxable_amount: invoice.taxable,
          amount: invoice.tax,
        },
      ],
    });
  });
});
