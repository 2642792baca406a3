import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pdfStrings, sharedPlatform, type SharedPlatform } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { accessibilityViolations, artifactsFolder, launchChromium } from './support/browser';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { openTaxedInvoice } from './support/open-invoice';
import { portalSessionUrl } from './support/portal';
import { sandboxControlsOf } from './support/test-clock';

/** NGN as the portal writes it (docs/api-behaviour.md §24). */
const naira = (minor: number) =>
  new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN', currencyDisplay: 'narrowSymbol' }).format(
    minor / 100,
  );
/** Spaces as one plain space: a page's text gives back Intl's no-break spaces as they are. */
const plain = (text: string) => text.replace(/[\u00a0\u202f\u2009]/g, ' ').replace(/\s+/g, ' ');

/**
 * The customer portal (docs/api-behaviour.md §24) in Chromium, from the link POST
 * /portal/sessions answered: what it shows, each action through its button and "Confirm", each
 * doing what the API does (its previews equal the API's, the sandbox charged once, the next
 * invoice carrying the new billing details), a PDF downloaded, and axe on every page.
 * Screenshots: test-artifacts/portal/.
 */
describe('the customer portal in a real browser', () => {
  let platform: SharedPlatform;
  let api: Api;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let acme: RegisteredMerchant;
  let basic: { id: string };
  let yearly: { id: string };
  const { post, get } = merchantCalls(() => api);
  const shot = (name: string) => page.screenshot({ path: `${artifactsFolder('portal')}/${name}.png`, fullPage: true });

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    browser = await launchChromium();
    acme = await registerMerchant(api, 'portal-browser');
    [basic, yearly] = await Promise.all([
      createdBody(post(acme, '/plans', { name: 'Basic', amount: 10_000 })),
      createdBody(post(acme, '/plans', { name: 'Pro yearly', amount: 100_000, interval: 'annually' })),
    ]);
    // NONE with another interval: the change bills the new plan's full period now, whatever the
    // second (§18), so the page's preview and the API's are the same figures.
    const configured = await api('PUT', '/api/v1/portal/configuration', {
      apiKey: acme.testKey,
      body: {
        cancellation: 'AT_PERIOD_END',
        plan_change: { enabled: true, plan_ids: [basic.id, yearly.id], proration: 'NONE' },
        payment_method_update: true,
        billing_details_update: true,
        headline: 'Manage your Acme subscription',
        return_url_default: `${platform.gatewayUrl}/healthz`,
      },
    });
    expect(configured.status).toBe(200);
  }, 360_000);
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1000, height: 1000 }, acceptDownloads: true });
    page = await context.newPage();
  });
  afterEach(async () => context?.close());
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const violations = () => accessibilityViolations(page);

  /** A new customer on Basic, and their portal opened in the browser from the API's link. */
  async function openedPortal(label: string): Promise<PaidCheckout> {
    const customer = await payHostedCheckout(api, platform.gatewayUrl, acme.testKey, basic.id, label);
    const response = await page.goto(await portalSessionUrl(api, acme, customer.customerId));
    expect([response?.status(), new URL(page.url()).pathname]).toEqual([200, '/portal']);
    return customer;
  }

  const rowsOf = async (selector: string): Promise<Map<string, string>> =>
    new Map(
      (
        await page
          .locator(`${selector} div`)
          .evaluateAll((divs) =>
            divs.map((div) => [div.querySelector('dt')?.textContent ?? '', div.querySelector('dd')?.textContent ?? '']),
          )
      ).map(([label, value]) => [plain(label), plain(value)] as [string, string]),
    );

  it('shows the merchant, the subscription, the invoices, the card and the billing details; a PDF downloads', async () => {
    const customer = await openedPortal('portal-home');
    await shot('1-portal-home');
    expect(await violations()).toEqual([]);

    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('portal-browser Ltd');
    await expect(page.getByText('Manage your Acme subscription').isVisible()).resolves.toBe(true);
    const subscription = await rowsOf('.subscription dl');
    const sub = (await get(acme, `/subscriptions/${customer.subscriptionId}`)).body;
    expect(subscription.get('Status')).toBe('Active');
    expect(subscription.get('Price')).toBe(`${naira(1_000_000)} every month`);
    expect(subscription.get('Next renewal')).toContain(naira(1_000_000));
    expect(subscription.get('Next renewal')).toContain(
      new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(
        new Date(sub.current_period_end),
      ),
    );
    const [invoice] = (await get(acme, `/invoices?customer_id=${customer.customerId}`)).body;
    const row = plain((await page.locator('table tbody tr').first().textContent()) ?? '');
    expect(row).toContain(invoice.number);
    expect(row).toContain(naira(invoice.amount * 100));
    expect(row).toContain('PAID');
    expect(plain((await page.locator('section[aria-labelledby=payment]').textContent()) ?? '')).toMatch(
      /ending in \d{4}/,
    );
    expect(await page.locator('section[aria-labelledby=details]').textContent()).toContain(customer.email);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: `Download PDF of ${invoice.number}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${invoice.number}.pdf`);
    const strings = await pdfStrings(readFileSync((await download.path())!));
    expect(strings.join(' ')).toContain(invoice.number);

    // "Return" goes to the configuration's return_url_default.
    await page.getByRole('button', { name: 'Return' }).click();
    expect(page.url()).toBe(`${platform.gatewayUrl}/healthz`);
  });

  it('"Cancel subscription" shows the refund quote of /cancel/preview and, confirmed, cancels at the period end', async () => {
    const customer = await openedPortal('portal-cancel');
    const preview = await post(acme, `/subscriptions/${customer.subscriptionId}/cancel/preview`, {
      at_period_end: true,
    });
    expect(preview.status).toBe(200);

    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await shot('2-cancel-confirmation');
    expect(await violations()).toEqual([]);
    const facts = await rowsOf('dl');
    expect(facts.get('Ends')).toMatch(/^At the end of the current period/);
    // At the period's end no policy refunds (§10): the API's preview says null, the page "None".
    expect(preview.body.refund).toBeNull();
    expect(facts.get('Refund')).toMatch(/^None/);

    // From the keyboard alone: the button takes focus and Enter presses it.
    await page.getByRole('button', { name: 'Confirm' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=cancel_scheduled/);
    await expect(page.getByRole('status').textContent()).resolves.toContain('will end with its current period');
    const sub = (await get(acme, `/subscriptions/${customer.subscriptionId}`)).body;
    // As the API's cancel at period end: still ACTIVE, ending with its period (§8).
    expect([sub.status, sub.cancel_at_period_end]).toEqual(['ACTIVE', true]);
    expect((await rowsOf('.subscription dl')).get('Cancellation')).toMatch(/^Cancels on /);
    await expect(page.getByRole('button', { name: 'Cancel subscription' }).count()).resolves.toBe(0);
  });

  it('"Update billing details", confirmed, puts them on the customer and on the next invoice', async () => {
    const customer = await openedPortal('portal-details');
    await page.getByLabel('Name').fill('Ada Obi');
    await page.getByLabel('Tax ID').fill('NG-12345678');
    await page.getByLabel('Address line 1').fill('12 Marina Road');
    await page.getByLabel('City').fill('Lagos');
    await page.getByLabel('Country (2-letter code)').fill('NG');
    await page.getByRole('button', { name: 'Update billing details' }).click();
    await shot('3-billing-details-confirmation');
    expect(await violations()).toEqual([]);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('billing details are updated');

    const updated = (await get(acme, `/customers/${customer.customerId}`)).body.customer;
    expect([updated.name, updated.tax_id, updated.address?.line1, updated.address?.country]).toEqual([
      'Ada Obi',
      'NG-12345678',
      '12 Marina Road',
      'NG',
    ]);
    // The next invoice (a plan change's) is made out to them: its PDF names them.
    const changed = await post(acme, `/subscriptions/${customer.subscriptionId}/change-plan`, {
      plan_id: yearly.id,
      proration: 'NONE',
    });
    expect(changed.status).toBe(200);
    const pdf = await fetch(changed.body.latest_invoice.invoice_pdf);
    const text = (await pdfStrings(Buffer.from(await pdf.arrayBuffer()))).join(' ');
    for (const value of ['Ada Obi', 'NG-12345678', '12 Marina Road', 'Lagos']) expect(text).toContain(value);
  });

  it('"Change plan" shows the /change-plan/preview figures and, confirmed, the sandbox charges that amount once', async () => {
    const customer = await openedPortal('portal-change');
    const preview = await post(acme, `/subscriptions/${customer.subscriptionId}/change-plan/preview`, {
      plan_id: yearly.id,
      proration: 'NONE',
    });
    expect([preview.status, preview.body.amount_due]).toEqual([200, 100_000]);

    await page.getByLabel(/^Pro yearly/).check();
    await page.getByRole('button', { name: 'Change plan' }).click();
    await shot('4-change-plan-confirmation');
    expect(await violations()).toEqual([]);
    const totals = await rowsOf('dl:last-of-type');
    expect(totals.get('Total')).toBe(naira(preview.body.amount * 100));
    expect(totals.get('Charged to your card now')).toBe(naira(preview.body.amount_due * 100));
    const lines = await page
      .locator('table tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
    expect(lines.map((row) => row.map(plain))).toEqual(
      preview.body.lines.map((line: { description: string; amount: number }) => [
        line.description,
        naira(line.amount * 100),
      ]),
    );

    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('plan is changed');
    await shot('5-plan-changed');
    const sub = (await get(acme, `/subscriptions/${customer.subscriptionId}`)).body;
    expect(sub.plan_id).toBe(yearly.id);
    const charges = (await sandboxControlsOf(platform).ledger({ email: customer.email })).transactions
      .filter((t) => t.channel === 'authorization')
      .map((t) => [t.status, t.amount]);
    expect(charges).toEqual([['success', 10_000_000]]);
  });

  it('a used link shows only that it expired, and passes axe', async () => {
    const customer = await openedPortal('portal-used');
    const url = await portalSessionUrl(api, acme, customer.customerId);
    await page.goto(url);
    const again = await browser.newContext();
    const other = await again.newPage();
    try {
      const response = await other.goto(url);
      expect(response?.status()).toBe(401);
      await expect(other.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This link has expired');
      const text = (await other.locator('body').textContent()) ?? '';
      expect(text).not.toContain(customer.email);
      expect(text).not.toContain('portal-browser');
      await other.screenshot({ path: `${artifactsFolder('portal')}/6-link-expired.png`, fullPage: true });
      expect(await accessibilityViolations(other)).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('"Update card" on a PAST_DUE subscription: the new card, authorized at the sandbox, pays its OPEN invoice at once', async () => {
    const { m, payer, subscriptionId, invoice } = await openTaxedInvoice(api, platform.gatewayUrl, 'portal-card');
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('PAST_DUE');
    await page.goto(await portalSessionUrl(api, m, payer.customerId));
    await page
      .locator(`section[aria-labelledby="sub-${subscriptionId}"]`)
      .getByRole('button', { name: 'Update card' })
      .click();
    expect(await violations()).toEqual([]);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Success/ }).click();
    await page.waitForURL(/\/portal\?done=card_updated/);
    await shot('8-card-updated');
    expect(await violations()).toEqual([]);

    expect((await get(m, `/invoices/${invoice.id}`)).body).toMatchObject({
      status: 'PAID',
      amount_paid: invoice.amount_due,
    });
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('ACTIVE');
    // The invoice was charged to the card the sandbox page authorized, not the declining one.
    const ledger = (await sandboxControlsOf(platform).ledger({ email: payer.email })).transactions;
    const authorized = ledger.find((t) => t.reference.startsWith('card-') && t.status === 'success');
    const [charge] = ledger
      .filter((t) => t.channel === 'authorization' && t.status === 'success')
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    expect(charge?.amount).toBe(Math.round(invoice.amount_due * 100));
    expect(authorized?.authorization_code).toBeTruthy();
    expect(charge?.authorization_code).toBe(authorized?.authorization_code);
  });

  it("shows a taxed, discounted subscription at the price its renewal invoices, a trial's end and an OPEN invoice", async () => {
    const { m, payer, subscriptionId, invoice } = await openTaxedInvoice(api, platform.gatewayUrl, 'portal-taxed');
    const response = await page.goto(await portalSessionUrl(api, m, payer.customerId));
    expect(response?.status()).toBe(200);
    await shot('7-taxed-subscription');
    expect(await violations()).toEqual([]);

    // The renewal that made the OPEN invoice billed the same plan, discount and rates as the next.
    const pro = await rowsOf(`section[aria-labelledby="sub-${subscriptionId}"] dl`);
    expect(pro.get('Status')).toBe('Past due');
    expect(pro.get('Price')).toBe(`${naira(invoice.amount * 100)} every month`);
    expect(pro.get('Next renewal')).toContain(naira(invoice.amount * 100));

    const listed = (await get(m, `/subscriptions?customer_id=${payer.customerId}`)).body as { id: string }[];
    const trialId = listed.find((s) => s.id !== subscriptionId)!.id;
    const trial = (await get(m, `/subscriptions/${trialId}`)).body;
    const trialRows = await rowsOf(`section[aria-labelledby="sub-${trial.id}"] dl`);
    expect(trialRows.get('Status')).toBe('Trial');
    expect(trialRows.get('Trial ends')).toBe(
      new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(
        new Date(trial.trial_end),
      ),
    );
    const open = plain((await page.locator('table tbody tr', { hasText: invoice.number }).textContent()) ?? '');
    expect(open).toContain('OPEN');
    expect(open).toContain(naira(invoice.amount * 100));
    await expect(page.getByRole('link', { name: `View invoice ${invoice.number}` }).getAttribute('href')).resolves.toBe(
      invoice.hosted_invoice_url,
    );
  });
});
