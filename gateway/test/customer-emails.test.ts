import { PortalLinks } from '@billing/platform';
import { SmtpInbox, type PlatformUnderTest, type ReceivedEmail } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type Json, type RegisteredMerchant } from './support/api';
import {
  EMAIL_SETTINGS,
  emailsOf,
  emailsSent,
  enableEmails,
  paidCustomer,
  startEmailPlatform,
} from './support/customer-emails';
import { plus } from './support/test-clock';
import { waitFor } from './support/wait';
import { startWebhookReceiver } from './support/webhook-receiver';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Customer emails (docs/api-behaviour.md §24) through a real SMTP server the suite starts: each
 * email of §24 once, with its links, From and Reply-To; in the customer's locale; the list of a
 * customer's emails; emails and webhooks never waiting for each other.
 */
describe('customer emails (notification -> SMTP)', () => {
  let inbox: SmtpInbox;
  let platform: PlatformUnderTest;
  let api: Api;
  let m: RegisteredMerchant;

  beforeAll(async () => {
    inbox = await new SmtpInbox().start();
    platform = await startEmailPlatform(inbox);
    api = gatewayApi(platform.gatewayUrl);
    m = await registerMerchant(api, 'emails');
    await enableEmails(api, m);
  });
  afterAll(async () => {
    await platform?.stop();
    await inbox?.stop();
  });

  const post = async (path: string, body: Json = {}) => api('POST', `/api/v1${path}`, { apiKey: m.testKey, body });
  const get = async (path: string) => api('GET', `/api/v1${path}`, { apiKey: m.testKey });
  const invoicesOf = async (subscriptionId: string): Promise<Json[]> =>
    (await get(`/invoices?subscription_id=${subscriptionId}&limit=100`)).body;
  /** The one email of `address` whose subject starts so, checked to have arrived once. */
  const onlyEmail = (address: string, subject: RegExp): ReceivedEmail => {
    const matching = inbox.to(address).filter((e) => subject.test(e.subject));
    expect(matching).toHaveLength(1);
    return matching[0];
  };
  const expectSettings = (email: ReceivedEmail) => {
    expect(email.from).toEqual({ name: EMAIL_SETTINGS.from_name, address: 'billing@platform.example' });
    expect(email.replyTo).toBe(EMAIL_SETTINGS.reply_to);
  };

  it('GET /email-settings answers the defaults until set; PUT replaces them and refuses a long name or a bad address', async () => {
    const fresh = await registerMerchant(api, 'settings');
    const read = await api('GET', '/api/v1/email-settings', { apiKey: fresh.testKey });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ enabled: false, from_name: null, reply_to: null });
    const put = await api('PUT', '/api/v1/email-settings', { apiKey: fresh.testKey, body: EMAIL_SETTINGS });
    expect([put.status, put.body]).toEqual([200, EMAIL_SETTINGS]);
    // Per mode: the live key's settings are still the defaults.
    const live = await api('GET', '/api/v1/email-settings', { apiKey: fresh.liveKey });
    expect(live.body).toEqual({ enabled: false, from_name: null, reply_to: null });
    const long = await api('PUT', '/api/v1/email-settings', {
      apiKey: fresh.testKey,
      body: { enabled: true, from_name: 'x'.repeat(101) },
    });
    expect(long.status).toBe(422);
    const bad = await api('PUT', '/api/v1/email-settings', {
      apiKey: fresh.testKey,
      body: { enabled: true, reply_to: 'not an address' },
    });
    expect(bad.status).toBe(422);
    // Whole replacement: what a PUT leaves out is back to its default.
    const replaced = await api('PUT', '/api/v1/email-settings', { apiKey: fresh.testKey, body: { enabled: true } });
    expect(replaced.body).toEqual({ enabled: true, from_name: null, reply_to: null });
  });

  it('a paid checkout: the invoice email with its hosted link and PDF, then the receipt, each once, From and Reply-To of the settings', async () => {
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'receipt');
    const [invoice] = await invoicesOf(payer.subscriptionId);
    await emailsSent(api, m, payer.customerId, ['invoice.created', 'invoice.paid']);
    const created = onlyEmail(payer.email, /^Invoice /);
    expectSettings(created);
    expect(created.subject).toBe(`Invoice ${invoice.number}: ₦150.00 due`);
    expect(created.text).toContain(invoice.hosted_invoice_url);
    expect(created.text).toContain(invoice.invoice_pdf);
    expect(created.html).toContain(`href="${invoice.hosted_invoice_url}"`);
    const receipt = onlyEmail(payer.email, /^Receipt /);
    expectSettings(receipt);
    expect(receipt.subject).toBe(`Receipt for invoice ${invoice.number}`);
    expect(receipt.text).toContain('₦150.00');
    expect(receipt.text).toContain(invoice.hosted_invoice_url);
    expect(inbox.to(payer.email)).toHaveLength(2);
    // The Message-ID is the email's id, the same on every attempt.
    const listed = await emailsOf(api, m, payer.customerId);
    for (const email of listed) {
      expect(inbox.to(payer.email).some((r) => r.messageId === `<${email.id}@platform.example>`)).toBe(true);
    }
  });

  it('a credit note: its email carries the credit_note_pdf link', async () => {
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'credited');
    const [invoice] = await invoicesOf(payer.subscriptionId);
    const note = await post(`/invoices/${invoice.id}/credit-notes`, {
      amount: 40,
      reason: 'ORDER_CHANGE',
      refund_to: 'BALANCE',
    });
    expect(note.status).toBe(201);
    await emailsSent(api, m, payer.customerId, ['credit_note.created']);
    const email = onlyEmail(payer.email, /^Credit note /);
    expectSettings(email);
    expect(email.subject).toBe(`Credit note ${note.body.number}: ₦40.00`);
    expect(email.text).toContain(note.body.credit_note_pdf);
    expect(email.html).toContain(`href="${note.body.credit_note_pdf}"`);
  });

  it('a cancellation, a trial about to end and a declined renewal: one email each, the failed payment with its hosted link and a portal link to the customer', async () => {
    const cancelled = await paidCustomer(api, platform.gatewayUrl, m, 'cancelled');
    expect((await post(`/subscriptions/${cancelled.subscriptionId}/cancel`)).status).toBe(200);
    const trialing = await paidCustomer(api, platform.gatewayUrl, m, 'trialing', { trial_period_days: 7 });
    const declined = await paidCustomer(api, platform.gatewayUrl, m, 'declined');
    const card = await post(`/test-helpers/customers/${declined.customerId}/card`, { behavior: 'decline' });
    expect(card.status).toBe(200);
    const { now } = (await get('/test-clock')).body;
    // Past the trial's 3-day notice and the weekly renewal, not past the trial's end.
    expect((await post('/test-clock/advance', { to: plus(now, 6 * DAY_MS) })).status).toBe(200);
    expect((await post('/test-clock/advance', { to: plus(now, 7 * DAY_MS + 3600_000) })).status).toBe(200);

    await emailsSent(api, m, cancelled.customerId, ['subscription.cancelled']);
    const cancelEmail = onlyEmail(cancelled.email, /cancelled$/);
    expectSettings(cancelEmail);
    expect(cancelEmail.subject).toBe('Your cancelled plan subscription is cancelled');

    await emailsSent(api, m, trialing.customerId, ['subscription.trial_will_end']);
    const trialEmail = onlyEmail(trialing.email, /trial ends/);
    expectSettings(trialEmail);
    expect(trialEmail.subject).toMatch(/^Your trialing plan trial ends on /);

    await emailsSent(api, m, declined.customerId, ['invoice.payment_failed']);
    const renewal = (await invoicesOf(declined.subscriptionId)).find((i: Json) => i.status === 'OPEN');
    expect(renewal).toBeDefined();
    const failed = onlyEmail(declined.email, /^Payment failed/);
    expectSettings(failed);
    expect(failed.subject).toBe(`Payment failed for invoice ${renewal.number}`);
    expect(failed.text).toContain(renewal.hosted_invoice_url);
    const portal = /(http:\/\/127\.0\.0\.1:\d+)\/portal\/enter\/([A-Za-z0-9._-]+)/.exec(failed.text);
    expect(portal?.[1]).toBe(platform.gatewayUrl);
    const claims = new PortalLinks(platform.env.PORTAL_LINKS_KEY.split(',')).claimsOf(portal![2], new Date());
    expect(claims).toMatchObject({ projectId: m.projectId, livemode: false, customerId: declined.customerId });
    // The link works for seven days.
    expect(claims!.expiresAt.getTime() - Date.now()).toBeGreaterThan(7 * DAY_MS - 120_000);
    expect(claims!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(7 * DAY_MS);
    // The renewal's own invoice email came too, and nothing else twice.
    const subjects = inbox.to(declined.email).map((e) => e.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
  });

  it('a customer whose preferred_locale is fr gets French subjects and bodies', async () => {
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'francais');
    await emailsSent(api, m, payer.customerId, ['invoice.paid']);
    const patched = await api('PATCH', `/api/v1/customers/${payer.customerId}`, {
      apiKey: m.testKey,
      body: { preferred_locale: 'fr' },
    });
    expect(patched.status).toBe(200);
    const [invoice] = await invoicesOf(payer.subscriptionId);
    const note = await post(`/invoices/${invoice.id}/credit-notes`, {
      amount: 40,
      reason: 'ORDER_CHANGE',
      refund_to: 'BALANCE',
    });
    expect(note.status).toBe(201);
    expect((await post(`/subscriptions/${payer.subscriptionId}/cancel`)).status).toBe(200);
    await emailsSent(api, m, payer.customerId, ['credit_note.created', 'subscription.cancelled']);
    const credit = onlyEmail(payer.email, /^Avoir /);
    expect(credit.subject).toBe(`Avoir ${note.body.number} : 40,00\u00a0₦`);
    expect(credit.text).toContain('Nous vous avons émis l’avoir');
    expect(credit.html).toContain('<html lang="fr">');
    const cancelled = onlyEmail(payer.email, /annulé$/);
    expect(cancelled.subject).toBe('Votre abonnement francais plan est annulé');
    expect(cancelled.text).toMatch(/^Bonjour/);
  });

  it('disabled settings send nothing: the events reach the webhook, no email is written or sent', async () => {
    const quiet = await registerMerchant(api, 'quiet');
    await enableEmails(api, quiet, { enabled: false, from_name: 'Quiet', reply_to: 'q@quiet.example' });
    const receiver = await startWebhookReceiver();
    try {
      const hook = await api('POST', '/api/v1/webhooks', {
        apiKey: quiet.testKey,
        token: quiet.token,
        body: { url: receiver.url, events: ['invoice.paid'] },
      });
      expect(hook.status).toBe(201);
      const payer = await paidCustomer(api, platform.gatewayUrl, quiet, 'quiet');
      const [invoice] = (
        await api('GET', `/api/v1/invoices?subscription_id=${payer.subscriptionId}`, { apiKey: quiet.testKey })
      ).body;
      // The consumer writes an event's emails before its deliveries: once the webhook has it,
      // its email would exist.
      await receiver.delivered('invoice.paid', invoice.id);
      await new Promise((r) => setTimeout(r, 500));
      expect(await emailsOf(api, quiet, payer.customerId)).toEqual([]);
      expect(inbox.to(payer.email)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('GET /customers/{id}/emails lists them newest first with their statuses, pages, and refuses another project\u2019s customer', async () => {
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'listed');
    const emails = await emailsSent(api, m, payer.customerId, ['invoice.created', 'invoice.paid']);
    expect(emails).toHaveLength(2);
    for (const email of emails) {
      expect(email).toEqual({
        id: expect.any(String),
        event_id: expect.any(String),
        type: expect.stringMatching(/^invoice\.(created|paid)$/),
        to: payer.email,
        subject: expect.any(String),
        status: 'SENT',
        attempts: 1,
        sent_at: expect.any(String),
        created_at: expect.any(String),
      });
    }
    expect(Date.parse(emails[0].created_at)).toBeGreaterThanOrEqual(Date.parse(emails[1].created_at));
    const first = await get(`/customers/${payer.customerId}/emails?limit=1`);
    expect(first.body.map((e: Json) => e.id)).toEqual([emails[0].id]);
    const second = await get(`/customers/${payer.customerId}/emails?limit=1&starting_after=${emails[0].id}`);
    expect(second.body.map((e: Json) => e.id)).toEqual([emails[1].id]);
    const other = await registerMerchant(api, 'other');
    const foreign = await api('GET', `/api/v1/customers/${payer.customerId}/emails`, { apiKey: other.testKey });
    expect(foreign.status).toBe(403);
    const unknown = await get('/customers/00000000-0000-4000-8000-000000000000/emails');
    expect(unknown.status).toBe(404);
    // The other mode of the same project does not see test-mode customers.
    const live = await api('GET', `/api/v1/customers/${payer.customerId}/emails`, { apiKey: m.liveKey });
    expect(live.status).toBe(404);
  });

  it('an address the SMTP server refuses for good (550): the email is FAILED after one attempt, never retried', async () => {
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'refused');
    await emailsSent(api, m, payer.customerId, ['invoice.created', 'invoice.paid']);
    // From now on the server knows no such mailbox.
    inbox.refused.add(payer.email);
    expect((await post(`/subscriptions/${payer.subscriptionId}/cancel`)).status).toBe(200);
    const emails = await waitFor(
      'the cancellation email FAILED',
      () => emailsOf(api, m, payer.customerId),
      (listed) => listed.some((e: Json) => e.status === 'FAILED'),
    );
    const failed = emails.find((e: Json) => e.status === 'FAILED');
    expect(failed).toMatchObject({ type: 'subscription.cancelled', attempts: 1, sent_at: null });
    // Well past the retry delays (0.3 s, 0.6 s, 1 s here): still one attempt.
    await new Promise((r) => setTimeout(r, 1500));
    const later = await emailsOf(api, m, payer.customerId);
    expect(later.find((e: Json) => e.id === failed.id)).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(inbox.to(payer.email)).toHaveLength(2);
  });

  describe('emails and webhooks never wait for each other', () => {
    it('a webhook receiver that fails every attempt does not delay the emails of the same events', async () => {
      const hooked = await registerMerchant(api, 'hooked');
      await enableEmails(api, hooked);
      // A receiver that is gone (every attempt refused): its deliveries are retried; the emails go at once.
      const gone = await startWebhookReceiver();
      const hook = await api('POST', '/api/v1/webhooks', {
        apiKey: hooked.testKey,
        token: hooked.token,
        body: { url: gone.url, events: ['*'] },
      });
      expect(hook.status).toBe(201);
      await gone.close();
      const started = Date.now();
      const payer = await paidCustomer(api, platform.gatewayUrl, hooked, 'hooked');
      await waitFor(
        'the receipt in the inbox',
        async () => inbox.to(payer.email).length,
        (n) => n === 2,
        10_000,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      const deliveries = await api('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`, {
        apiKey: hooked.testKey,
        token: hooked.token,
      });
      expect(deliveries.body.some((d: Json) => d.event === 'invoice.paid' && d.status !== 'SUCCEEDED')).toBe(true);
    });

    it('an SMTP server that is down does not delay the webhook of the same event', async () => {
      const receiver = await startWebhookReceiver();
      const hook = await api('POST', '/api/v1/webhooks', {
        apiKey: m.testKey,
        token: m.token,
        body: { url: receiver.url, events: ['invoice.paid'] },
      });
      expect(hook.status).toBe(201);
      await inbox.stop();
      try {
        const started = Date.now();
        const payer = await paidCustomer(api, platform.gatewayUrl, m, 'outage-hook');
        const [invoice] = await invoicesOf(payer.subscriptionId);
        await receiver.delivered('invoice.paid', invoice.id);
        expect(Date.now() - started).toBeLessThan(10_000);
        const queued = await emailsOf(api, m, payer.customerId);
        expect(queued.filter((e: Json) => e.status === 'QUEUED')).toHaveLength(2);
        await inbox.start();
        await emailsSent(api, m, payer.customerId, ['invoice.created', 'invoice.paid']);
      } finally {
        await inbox.start();
        await receiver.close();
        await api('DELETE', `/api/v1/webhooks/${hook.body.id}`, { apiKey: m.testKey, token: m.token });
      }
    });
  });
});
