import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pdfStrings, sharedPlatform, type SharedPlatform } from '@billing/testing';
import { gatewayApi, merchantCalls, type Api, type Json } from './support/api';
import { accessibilityViolations, artifactsFolder, launchChromium } from './support/browser';
import { openTaxedInvoice } from './support/open-invoice';
import { screenshotPdfFirstPage } from './support/pdf-screenshot';

/** NGN as the page and the PDF write it for an `en` customer (docs/api-behaviour.md §22). */
const naira = (major: number) =>
  new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN', currencyDisplay: 'narrowSymbol' }).format(major);
/** Spaces as one plain space: a page's text gives back Intl's no-break spaces as they are. */
const plain = (text: string) => text.replace(/[\u00a0\u202f\u2009]/g, ' ');

/**
 * The hosted invoice page (docs/api-behaviour.md §22) in Chromium, as the customer sees it from
 * the link of the invoice's `hosted_invoice_url`: every figure of the invoice's JSON view on it,
 * "Pay" from the keyboard through the sandbox provider's page, "Download PDF" read back with a PDF
 * text extractor, and axe's accessibility check. Screenshots: test-artifacts/invoice-page/.
 */
describe('the hosted invoice page in a real browser', () => {
  let platform: SharedPlatform;
  let api: Api;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const { get } = merchantCalls(() => api);
  const shot = (name: string) =>
    page.screenshot({ path: `${artifactsFolder('invoice-page')}/${name}.png`, fullPage: true });

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    browser = await launchChromium();
  }, 360_000);
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 900, height: 1000 }, acceptDownloads: true });
    page = await context.newPage();
  });
  afterEach(async () => context?.close());
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const violations = () => accessibilityViolations(page);

  /** The label and value of each row of a list on the page (facts, totals, credit notes). */
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

  it('shows every figure of the JSON view of a taxed, discounted invoice, and the seller and buyer as the invoice kept them', async () => {
    const { invoice } = await openTaxedInvoice(api, platform.gatewayUrl, 'page-figures');
    const response = await page.goto(invoice.hosted_invoice_url);
    expect(response?.status()).toBe(200);
    await shot('1-open-invoice');

    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Invoice ${invoice.number}`);
    const facts = await rowsOf('dl.facts');
    expect(facts.get('Number')).toBe(invoice.number);
    expect(facts.get('Status')).toBe('Open');
    expect(facts.get('Currency')).toBe('NGN');

    const cells = await page
      .locator('table tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
    expect(cells.map((row) => row.map(plain))).toEqual(
      invoice.lines.map((line: Json) => [line.description, line.quantity, naira(line.unit_amount), naira(line.amount)]),
    );

    const totals = await rowsOf('dl.totals');
    expect(totals.get('Subtotal')).toBe(naira(invoice.subtotal));
    expect(totals.get('Discount')).toBe(naira(-invoice.discount));
    expect(invoice.discount).toBeGreaterThan(0);
    expect(invoice.total_tax_amounts).toHaveLength(2);
    for (const tax of invoice.total_tax_amounts) {
      const label = `${tax.display_name} (${tax.percentage}%${tax.inclusive ? ', incl.' : ''})`;
      expect([label, totals.get(label)]).toEqual([label, naira(tax.amount)]);
    }
    expect(totals.get('Total')).toBe(naira(invoice.amount));
    expect(totals.get('Amount paid')).toBe(naira(invoice.amount_paid));
    expect(totals.get('Amount due')).toBe(naira(invoice.amount_due));

    const text = plain(await page.locator('main').innerText());
    for (const words of [
      'page-figures Cloud Services Ltd',
      '12 Ahmadu Bello Way',
      'Tax ID: TIN 12345678-0001',
      'Ada Obi',
      invoice.customer_email,
      '3 Marina Road',
      'Tax ID: NG-TIN-998877',
      'Thank you for your business.',
    ]) {
      expect(text).toContain(words);
    }
    await expect(page.getByRole('button', { name: 'Pay' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Download PDF' }).isVisible()).resolves.toBe(true);
    expect(await violations()).toEqual([]);
  });

  it('"Pay" from the keyboard on a PAST_DUE subscription\'s invoice: paid at the sandbox, the invoice PAID and the subscription ACTIVE', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'page-pay');
    const { m, invoice, subscriptionId } = open;
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('PAST_DUE');
    await page.goto(invoice.hosted_invoice_url);
    // Tab through the page to "Pay": nothing but the keyboard.
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press('Tab');
      if ((await page.locator(':focus').textContent()) === 'Pay') break;
    }
    await expect(page.locator(':focus').textContent()).resolves.toBe('Pay');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/pay\//);
    await page.getByRole('button', { name: /Success/ }).click();
    await page.waitForURL(/payment=paid/);
    await shot('2-paid-invoice');
    await expect(page.getByRole('status').textContent()).resolves.toContain('this invoice is paid');
    expect((await rowsOf('dl.facts')).get('Status')).toBe('Paid');
    await expect(page.getByRole('button', { name: 'Pay' }).count()).resolves.toBe(0);
    expect(await violations()).toEqual([]);

    const paid = (await get(m, `/invoices/${invoice.id}`)).body;
    expect(paid).toMatchObject({ status: 'PAID', amount_paid: invoice.amount_due });
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('ACTIVE');
  });

  it('"Download PDF" gives a PDF whose text holds the number, each line, each tax and the total', async () => {
    const { invoice } = await openTaxedInvoice(api, platform.gatewayUrl, 'page-pdf');
    await page.goto(invoice.hosted_invoice_url);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${invoice.number}.pdf`);
    const pdf = readFileSync(await download.path());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const strings = await pdfStrings(pdf);
    const text = strings.join('\n');
    expect(text).toContain(invoice.number);
    for (const line of invoice.lines) {
      expect(strings).toContain(line.description);
      expect(strings).toContain(naira(line.amount));
    }
    for (const tax of invoice.total_tax_amounts) {
      expect(text).toContain(tax.display_name);
      expect(strings).toContain(naira(tax.amount));
    }
    expect(strings).toContain(naira(invoice.amount));
    await screenshotPdfFirstPage(browser, pdf, `${artifactsFolder('invoice-page')}/3-invoice-pdf.png`);
  });

  it('a link that is not valid shows a page that names no invoice, and passes the accessibility check', async () => {
    const response = await page.goto(`${platform.gatewayUrl}/i/${'0'.repeat(32)}${'A'.repeat(43)}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Link not valid');
    expect(await violations()).toEqual([]);
  });
});
