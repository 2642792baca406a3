import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatMoney, toMinorUnits } from '@billing/platform';
import {
  listenLocally,
  SHARED_PLATFORM_ENV,
  startPlatform,
  type LocalEndpoint,
  type PlatformUnderTest,
} from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { accessibilityViolations, artifactsFolder, launchChromium } from './support/browser';
import { signInWithKeyboard } from './support/dashboard';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { waitFor } from './support/wait';

/** NGN as the dashboard writes it: the platform's own money formatting of the API's major units. */
const naira = (amount: number) => formatMoney(toMinorUnits(amount), 'NGN', 'en');
/** Spaces as one plain space: a page's text gives back Intl's no-break spaces as they are. */
const plain = (text: string | null) =>
  (text ?? '')
    .replace(/[\u00a0\u202f\u2009]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The screenshots the README's tour shows: with README_SCREENSHOTS=1 this run's are copied to
 * docs/screenshots/ (otherwise a run would rewrite tracked files with its own emails and dates).
 */
const README_SCREENSHOTS = process.env.README_SCREENSHOTS === '1' ? resolve(__dirname, '../../docs/screenshots') : null;

/**
 * The merchant dashboard (docs/api-behaviour.md §25) in Chromium on a real platform: signing in
 * with the keyboard, the test/live switch, the MRR chart and its table holding GET /analytics/mrr's
 * points, a customer found by email, a credit note issued from an invoice with the keyboard alone,
 * an API key created (its secret once) and revoked, a failed webhook delivery resent, and axe's
 * check on every page. Screenshots: test-artifacts/dashboard/ (and three in docs/screenshots/).
 */
describe('the merchant dashboard in a real browser', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let acme: RegisteredMerchant;
  let ada: PaidCheckout;
  let receiver: LocalEndpoint;
  let receiverAnswers = 500;
  let failedDelivery: { id: string; webhookId: string };
  /** Content-Security-Policy refusals the pages caused: there must be none. */
  const refusals: string[] = [];
  const { post, get } = merchantCalls(() => api);

  const shot = async (name: string, readme?: string) => {
    const path = `${artifactsFolder('dashboard')}/${name}.png`;
    await page.screenshot({ path, fullPage: true });
    if (readme && README_SCREENSHOTS) copyFileSync(path, `${README_SCREENSHOTS}/${readme}`);
  };
  /** axe's WCAG 2.1 A/AA check: nothing serious or critical (the others are printed). */
  const expectAccessible = async () => {
    const violations = await accessibilityViolations(page);
    const minor = violations.filter((v) => !/\((serious|critical)\)/.test(v));
    if (minor.length > 0) process.stdout.write(`${page.url()}: ${minor.join('\n')}\n`);
    expect([page.url(), violations.filter((v) => /\((serious|critical)\)/.test(v))]).toEqual([page.url(), []]);
  };
  const signIn = () => signInWithKeyboard(page, platform.gatewayUrl, acme.email, acme.password);
  const toTestMode = async () => {
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await expect(page.getByText('Test mode', { exact: true }).isVisible()).resolves.toBe(true);
  };
  const dashboard = (path: string) => page.goto(`${platform.gatewayUrl}/dashboard${path}`);

  beforeAll(async () => {
    platform = await startPlatform({
      env: {
        ...SHARED_PLATFORM_ENV,
        // A delivery fails for good after five quick attempts, so that it can be resent.
        WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100',
        WEBHOOK_TIMEOUT_MS: '2000',
        DELIVERY_POLL_MS: '50',
      },
    });
    api = gatewayApi(platform.gatewayUrl);
    browser = await launchChromium();
    acme = await registerMerchant(api, 'dashboard');
    const plan = await createdBody(post(acme, '/plans', { name: 'Pro', amount: 12_500.5 }));
    ada = await payHostedCheckout(api, platform.gatewayUrl, acme.testKey, plan.id, 'ada');
    await Promise.all([
      post(acme, '/coupons', { code: 'WELCOME10', percent_off: 10, duration: 'once' }),
      post(acme, '/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive: false, country: 'NG' }),
    ]);

    receiver = await listenLocally((_req, _body, res) => res.writeHead(receiverAnswers).end());
    const hook = await createdBody(
      api('POST', '/api/v1/webhooks', {
        apiKey: acme.testKey,
        token: acme.token,
        body: { url: `${receiver.url}/hooks`, events: ['*'], description: 'Order system' },
      }),
    );
    const sent = await api('POST', '/api/v1/webhooks/test', {
      apiKey: acme.testKey,
      token: acme.token,
      body: { webhook_id: hook.id, event: 'invoice.paid' },
    });
    expect(sent.status).toBe(202);
    await waitFor(
      'the test delivery to fail five times',
      async () =>
        (
          await api('GET', `/api/v1/webhooks/deliveries/${sent.body.delivery_id}`, {
            apiKey: acme.testKey,
            token: acme.token,
          })
        ).body?.status,
      (status) => status === 'FAILED',
    );
    failedDelivery = { id: sent.body.delivery_id, webhookId: hook.id };
  }, 360_000);
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refusals.push(message.text());
    });
  });
  afterEach(async () => context?.close());
  afterAll(async () => {
    expect(refusals).toEqual([]);
    await browser?.close();
    await receiver?.close();
    await platform?.stop();
  });

  it('signs in with the keyboard, switches to test mode and charts GET /analytics/mrr: the chart and its table hold its points', async () => {
    await page.goto(`${platform.gatewayUrl}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await expectAccessible();
    await signIn();
    await expect(page.getByText('Live mode', { exact: true }).isVisible()).resolves.toBe(true);
    const tableOf = () =>
      page
        .locator('#mrr-table tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [row.getAttribute('data-month'), Number(row.getAttribute('data-mrr'))]),
        );
    // Live mode first: the live key's figures (nothing sold live), not the test ones.
    const live = (await api('GET', '/api/v1/analytics/mrr', { apiKey: acme.liveKey })).body as {
      month: string;
      mrr: number;
    }[];
    expect(await tableOf()).toEqual(live.map((m) => [m.month, m.mrr]));
    expect(live.every((m) => m.mrr === 0)).toBe(true);
    await toTestMode();

    // The read model follows billing's events: wait until it has Ada's subscription.
    const mrr = await waitFor(
      "the analytics read model to count Ada's subscription",
      async () => (await get(acme, '/analytics/mrr')).body as { month: string; mrr: number }[],
      (months) => Array.isArray(months) && months.length === 12 && months[11].mrr > 0,
    );
    const summary = (await get(acme, '/analytics/summary')).body;
    const revenue = (await get(acme, '/analytics/revenue')).body as { month: string; gross: number }[];
    expect(mrr[11].mrr).toBe(12_500.5);
    await page.reload();

    expect(await tableOf()).toEqual(mrr.map((m) => [m.month, m.mrr]));
    const shownMrr = await page.locator('#mrr-table tbody tr td:first-of-type').allTextContents();
    expect(shownMrr.map(plain)).toEqual(mrr.map((m) => plain(naira(m.mrr))));
    await page.locator('#mrr-chart').waitFor({ state: 'visible' });
    // What Chart.js drew from: the chart object of the canvas (Chart.getChart), read in the page.
    const chart = (await page.evaluate(
      "(() => { const c = Chart.getChart('mrr-chart'); return { labels: c.data.labels, points: c.data.datasets[0].data }; })()",
    )) as { labels: string[]; points: number[] };
    expect(chart).toEqual({ labels: mrr.map((m) => m.month), points: mrr.map((m) => m.mrr) });

    const figures = new Map(
      await page
        .locator('dl.facts div')
        .evaluateAll((divs) =>
          divs.map((d) => [d.querySelector('dt')?.textContent ?? '', d.querySelector('dd')?.textContent ?? '']),
        ),
    );
    expect(plain(figures.get('MRR') ?? '')).toBe(plain(naira(summary.mrr)));
    expect(plain(figures.get('ARR') ?? '')).toBe(plain(naira(summary.arr)));
    expect(figures.get('Active subscriptions')).toBe(String(summary.active_subscriptions));
    const revenueRows = await page.locator('table:not(#mrr-table) tbody tr').evaluateAll((rows) =>
      rows.map((row) => {
        const cells = row.querySelectorAll('td');
        const texts: string[] = [];
        for (let i = 0; i < cells.length; i += 1) texts.push(cells[i].textContent ?? '');
        return texts;
      }),
    );
    expect(revenueRows.map((cells) => [cells[0], plain(cells[1])])).toEqual(
      revenue.map((r) => [r.month, plain(naira(r.gross))]),
    );
    await shot('home', '10-dashboard-home.png');
    await expectAccessible();
  });

  it('finds a customer by email and shows their subscriptions, invoices, balance and emails', async () => {
    await signIn();
    await toTestMode();
    await page.getByRole('link', { name: 'Customers', exact: true }).click();
    await expectAccessible();
    await page.getByLabel('Email address').fill(ada.email.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('table tbody tr');
    await expect(rows.count()).resolves.toBe(1);
    await page.getByRole('link', { name: ada.email }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/customers/${ada.customerId}`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Customer ${ada.email}`);
    const [invoice] = (await get(acme, `/invoices?customer_id=${ada.customerId}`)).body;
    const subscriptions = plain(await page.locator('section[aria-labelledby=subscriptions-heading]').textContent());
    expect(subscriptions).toContain('Pro');
    expect(subscriptions).toContain('ACTIVE');
    expect(subscriptions).toContain(plain(naira(12_500.5)));
    const invoices = plain(await page.locator('section[aria-labelledby=invoices-heading]').textContent());
    expect(invoices).toContain(invoice.number);
    expect(invoices).toContain('PAID');
    await expect(page.locator('section[aria-labelledby=emails-heading]').isVisible()).resolves.toBe(true);
    await shot('customer');
    await expectAccessible();

    // A search that finds nobody says so.
    await dashboard('/customers?email=nobody%40example.com');
    await expect(page.getByText('no customer has this address').isVisible()).resolves.toBe(true);
  });

  it('issues a credit note from an invoice with the keyboard alone; the API has it, and the refund', async () => {
    await signIn();
    await toTestMode();
    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.getByLabel('Status').selectOption('PAID');
    await page.getByRole('button', { name: 'Filter' }).click();
    const [invoice] = (await get(acme, `/invoices?customer_id=${ada.customerId}`)).body;
    const row = plain(await page.locator('table tbody tr').first().textContent());
    expect(row).toContain(invoice.number);
    expect(row).toContain(plain(naira(invoice.amount)));
    await expect(
      page.getByRole('link', { name: `Hosted page of ${invoice.number}` }).getAttribute('href'),
    ).resolves.toBe(invoice.hosted_invoice_url);
    await expect(page.getByRole('link', { name: `PDF of ${invoice.number}` }).getAttribute('href')).resolves.toBe(
      invoice.invoice_pdf,
    );
    await shot('invoices', '11-dashboard-invoices.png');
    await expectAccessible();

    await page.getByRole('link', { name: invoice.number, exact: true }).click();
    await expectAccessible();
    // From the top of the page: the skip link first, which takes focus to the content; then Tab
    // until the amount field, type, Tab on, Enter.
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').textContent()).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(page.locator(':focus').getAttribute('id')).resolves.toBe('main');
    await page.keyboard.press('Tab');
    for (let tabs = 0; tabs < 80; tabs += 1) {
      if ((await page.locator(':focus').getAttribute('id')) === 'credit-amount') break;
      await page.keyboard.press('Tab');
    }
    await expect(page.locator(':focus').getAttribute('id')).resolves.toBe('credit-amount');
    await page.keyboard.type('2500.25');
    await page.keyboard.press('Tab'); // the reason: Product unsatisfactory, with the arrow key
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab'); // "The card" (checked): the refund goes back to the card
    await page.keyboard.press('Tab');
    await page.keyboard.type('Partial refund for the outage');
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').textContent()).resolves.toBe('Issue credit note');
    // The form as sent, to send it a second time below (a double click, a resubmitted page).
    const sentForm = {
      csrf_token: await page.locator('form[action$="/credit-notes"] input[name=csrf_token]').inputValue(),
      idempotency_key: await page.locator('input[name=idempotency_key]').inputValue(),
      amount: '2500.25',
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'CARD',
      memo: 'Partial refund for the outage',
    };
    await Promise.all([page.waitForURL(/done=credit_note/), page.keyboard.press('Enter')]);
    await expect(page.getByRole('status').textContent()).resolves.toBe('Credit note issued.');

    const notes = (await get(acme, `/credit-notes?invoice_id=${invoice.id}`)).body;
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      amount: 2500.25,
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'CARD',
      memo: 'Partial refund for the outage',
    });
    const after = (await get(acme, `/invoices/${invoice.id}`)).body;
    expect(after.amount_refunded).toBe(2500.25);
    const creditNotes = plain(await page.locator('section[aria-labelledby=credit-notes-heading]').textContent());
    expect(creditNotes).toContain(notes[0].number);
    expect(creditNotes).toContain(plain(naira(2500.25)));
    await expect(page.getByRole('link', { name: `PDF of ${notes[0].number}` }).getAttribute('href')).resolves.toBe(
      notes[0].credit_note_pdf,
    );
    // Sent again, the same form issues nothing more: it carries its own Idempotency-Key.
    const again = await page.request.post(`${platform.gatewayUrl}/dashboard/invoices/${invoice.id}/credit-notes`, {
      form: sentForm,
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    await shot('invoice');
    expect((await get(acme, `/credit-notes?invoice_id=${invoice.id}`)).body).toHaveLength(1);
    expect((await get(acme, `/invoices/${invoice.id}`)).body.amount_refunded).toBe(2500.25);

    // The API's rule, as the API words it: more than remains is refused, nothing issued.
    await page.getByLabel('Amount (NGN)').fill('999999');
    await page.getByRole('button', { name: 'Issue credit note' }).click();
    expect(await page.locator('main').textContent()).toContain('remain');
    expect((await get(acme, `/credit-notes?invoice_id=${invoice.id}`)).body).toHaveLength(1);
  });

  it('creates an API key whose secret is shown once, then revokes it', async () => {
    await signIn();
    await toTestMode();
    await page.getByRole('link', { name: 'API keys' }).click();
    await expectAccessible();
    await page.getByLabel('Name').fill('Reporting job');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#new-key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^svc_test_[A-Za-z0-9]{32,}$/);
    await expectAccessible();
    const current = await api('GET', '/api/v1/projects/current', { apiKey: secret });
    expect([current.status, current.body.livemode]).toEqual([200, false]);

    await page.reload();
    await expect(page.locator('#new-key-secret').count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(secret);
    await dashboard('/api-keys');
    expect(await page.content()).not.toContain(secret);
    await shot('api-keys', '12-dashboard-api-keys.png');

    const created = (
      (await api('GET', `/api/v1/api-keys?project_id=${acme.projectId}`, { token: acme.token })).body as {
        id: string;
        name: string;
        last4: string;
      }[]
    ).find((k) => k.name === 'Reporting job')!;
    expect(secret.endsWith(created.last4)).toBe(true);
    const named = (
      await api('GET', `/api/v1/api-keys?project_id=${acme.projectId}`, { token: acme.token })
    ).body.filter((k: { name: string }) => k.name === 'Reporting job');
    expect(named).toHaveLength(1);
    await page.getByRole('button', { name: `Revoke Reporting job (…${created.last4})` }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('API key revoked');
    expect((await api('GET', '/api/v1/projects/current', { apiKey: secret })).status).toBe(401);
    await expect(page.getByRole('button', { name: `Revoke Reporting job (…${created.last4})` }).count()).resolves.toBe(
      0,
    );
  });

  it('shows a failed delivery with its attempts and resends it', async () => {
    await signIn();
    await toTestMode();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expectAccessible();
    await page.getByRole('link', { name: `${receiver.url}/hooks` }).click();
    await expectAccessible();
    await page.getByLabel('Status').selectOption('FAILED');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: `invoice.paid delivery ${failedDelivery.id}` }).click();
    await expect(page.locator('section[aria-labelledby=attempts-heading] tbody tr').count()).resolves.toBe(5);
    expect(plain(await page.locator('dl.facts').textContent())).toContain('FAILED');
    await expectAccessible();

    receiverAnswers = 204;
    await page.getByRole('button', { name: 'Resend delivery' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Delivery resent');
    const delivery = await waitFor(
      'the resent delivery to succeed',
      async () =>
        (
          await api('GET', `/api/v1/webhooks/deliveries/${failedDelivery.id}`, {
            apiKey: acme.testKey,
            token: acme.token,
          })
        ).body,
      (d) => d.status === 'SUCCEEDED',
    );
    expect(delivery.attempts).toBe(6);
    await page.reload();
    expect(plain(await page.locator('dl.facts').textContent())).toContain('SUCCEEDED');
    await expect(page.locator('section[aria-labelledby=attempts-heading] tbody tr').count()).resolves.toBe(6);
    await expect(page.getByRole('button', { name: 'Resend delivery' }).count()).resolves.toBe(0);
    await shot('delivery');
  });

  it('passes axe on every other page, and its forms save what the API then answers', async () => {
    await signIn();
    await toTestMode();
    for (const path of ['/subscriptions?status=ACTIVE', '/plans', '/coupons', '/tax-rates']) {
      await dashboard(path);
      expect(await page.locator('table tbody tr').count()).toBeGreaterThan(0);
      await expectAccessible();
    }

    // The create forms: what they send is what the API then lists.
    await dashboard('/plans');
    await page.getByLabel('Name', { exact: true }).fill('Team yearly');
    await page.getByLabel('Price per period').fill('250000');
    await page.getByLabel('Billed').selectOption('annually');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Plan created.');
    expect(plain(await page.locator('table tbody tr').first().textContent())).toContain(plain(naira(250_000)));
    await expectAccessible();
    const [team] = (await get(acme, '/plans')).body;
    expect(team).toMatchObject({ name: 'Team yearly', amount: 250_000, currency: 'NGN', interval: 'annually' });
    await page.getByLabel('Name', { exact: true }).fill('Too precise');
    await page.getByLabel('Price per period').fill('10.005');
    await page.getByRole('button', { name: 'Create plan' }).click();
    expect(await page.locator('main').textContent()).toContain('amount');
    expect((await get(acme, '/plans')).body).toHaveLength(2);

    await dashboard('/tax-rates');
    await page.getByLabel('Name on invoices').fill('Levy');
    await page.getByLabel('Percentage').fill('2.5');
    await page.getByLabel('Included in prices').check();
    await page.getByRole('button', { name: 'Create tax rate' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Tax rate created.');
    expect((await get(acme, '/tax-rates')).body[0]).toMatchObject({
      display_name: 'Levy',
      percentage: 2.5,
      inclusive: true,
    });

    await dashboard('/coupons');
    await page.getByLabel('Code').fill('SPRING25');
    await page.getByLabel('Percent off').fill('25');
    await page.getByLabel('Applies to').selectOption('FOREVER');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Coupon created.');
    expect((await get(acme, '/coupons')).body[0]).toMatchObject({
      code: 'SPRING25',
      percent_off: 25,
      duration: 'FOREVER',
    });

    await dashboard('/portal-configuration');
    await shot('portal-configuration');
    await expectAccessible();
    await page.getByLabel('Headline (optional)').fill('Manage your Acme plan');
    await page.getByLabel('Cancel subscription').selectOption('NONE');
    await page.getByRole('button', { name: 'Save portal configuration' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');
    expect((await get(acme, '/portal/configuration')).body).toMatchObject({
      headline: 'Manage your Acme plan',
      cancellation: 'NONE',
    });

    await dashboard('/email-settings');
    await expectAccessible();
    await page.getByLabel('Email customers').check();
    await page.getByLabel('From name (optional)').fill('Acme Billing');
    await page.getByLabel('Reply-To address (optional)').fill('billing@acme.example');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');
    expect((await get(acme, '/email-settings')).body).toEqual({
      enabled: true,
      from_name: 'Acme Billing',
      reply_to: 'billing@acme.example',
    });

    // Bad input is a clear 4xx page, never a 500.
    const refused = await dashboard('/invoices?status=SOMETIMES');
    expect(refused?.status()).toBe(422);
    await expectAccessible();
    expect((await dashboard('/invoices/not-an-invoice'))?.status()).toBe(404);
    expect((await dashboard('/customers/00000000-0000-4000-8000-000000000000'))?.status()).toBe(404);

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await dashboard('/plans');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  });
});
