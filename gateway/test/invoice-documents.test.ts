import type { SandboxControlsClient } from '@billing/payments';
import {
  followCallback,
  payOnSandboxPage,
  pdfStrings,
  pressPay,
  queryDatabase,
  sharedPlatform,
  type SharedPlatform,
} from '@billing/testing';
import { gatewayApi, merchantCalls, registerMerchant, UUID, type Api, type Json } from './support/api';
import { download, openTaxedInvoice, type OpenInvoice } from './support/open-invoice';
import { sandboxControlsOf } from './support/test-clock';
import { waitFor } from './support/wait';

/** A link's token: the document's id (32 hex digits) and a 256-bit MAC (docs/api-behaviour.md §22). */
const TOKEN = /^[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;

/** NGN as the page and the PDF write it for an `en` customer. */
const naira = (major: number) =>
  new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN', currencyDisplay: 'narrowSymbol' }).format(major);

/**
 * Invoice documents (docs/api-behaviour.md §22, §23) through the gateway, every process real: the
 * links billing signs, the hosted invoice page and its "Pay" over HTTP as a payer's browser sends
 * them (the sandbox provider's page answered as a payer would), the PDFs read back with a PDF text
 * extractor, money checked in the sandbox provider's own ledger. The page in a real browser:
 * invoice-page-browser.test.ts.
 */
describe('invoice documents: links, hosted page, Pay, PDFs (gateway -> documents -> billing)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
  });
  afterAll(() => platform?.stop());

  const { post, get } = merchantCalls(() => api);
  const invoiceNow = async ({ m, invoice }: OpenInvoice): Promise<Json> =>
    (await get(m, `/invoices/${invoice.id}`)).body;
  const tokenOf = (url: string) => new URL(url).pathname.split('/')[2];
  const paidEvents = async (invoiceId: string) =>
    queryDatabase(
      platform.database('billing'),
      `SELECT seq FROM outbox_events WHERE event_type = 'invoice.paid' AND payload->'data'->>'id' = $1`,
      [invoiceId],
    );
  /** What the payer paid on the hosted invoice page and got back, at the provider, in minor units. */
  const moneyAtProvider = async (email: string) => {
    const ledger = await sandbox.ledger({ email });
    return {
      hostedPayments: ledger.transactions
        .filter((t) => t.reference.startsWith('hinv-'))
        .map((t) => [t.amount, t.status])
        .sort(),
      refunds: ledger.refunds
        .filter((r) => r.transaction_reference.startsWith('hinv-'))
        .map((r) => [r.amount, r.status]),
    };
  };

  it('every invoice carries hosted_invoice_url and invoice_pdf on PUBLIC_URL with a 256-bit token; the page needs no API key', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-links');
    const { invoice } = open;
    expect(invoice.hosted_invoice_url).toBe(`${platform.gatewayUrl}/i/${tokenOf(invoice.hosted_invoice_url)}`);
    expect(tokenOf(invoice.hosted_invoice_url)).toMatch(TOKEN);
    expect(tokenOf(invoice.hosted_invoice_url).slice(0, 32)).toBe(invoice.id.replace(/-/g, ''));
    expect(invoice.invoice_pdf).toBe(`${invoice.hosted_invoice_url}/pdf`);
    // The same links in the list, and for ever: they are derived, not issued once.
    const listed = (await get(open.m, `/invoices?subscription_id=${open.subscriptionId}`)).body as Json[];
    expect(listed.find((i) => i.id === invoice.id)?.hosted_invoice_url).toBe(invoice.hosted_invoice_url);

    const page = await fetch(invoice.hosted_invoice_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain(`Invoice ${invoice.number}`);
    expect(html).toContain(naira(invoice.amount_due));
    expect(html).toMatch(/<button type="submit">Pay<\/button>/);
  });

  it('a wrong token is a 404 that says nothing about any invoice: unknown, tampered, of a credit note, of another invoice with this id', async () => {
    const { invoice, payer } = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-wrong');
    const token = tokenOf(invoice.hosted_invoice_url);
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const otherId = `${'0'.repeat(32)}${token.slice(32)}`;
    const wrong = [
      `/i/${flipped}`,
      `/i/${flipped}/pdf`,
      `/i/${otherId}`,
      `/i/${token.slice(0, 40)}`,
      `/i/not-a-token`,
      `/cn/${token}/pdf`,
      `/i/${token}%00`,
    ];
    const answers = await Promise.all(wrong.map((path) => download(`${platform.gatewayUrl}${path}`)));
    for (const [index, answer] of answers.entries()) {
      expect([wrong[index], answer.status]).toEqual([wrong[index], 404]);
      const text = answer.bytes.toString('utf8');
      for (const secret of [invoice.number, invoice.id, payer.email, 'Ada Obi', 'Cloud Services']) {
        expect(text).not.toContain(secret);
      }
    }
    // One page for every wrong link: nothing tells a near miss from a wild guess.
    expect(new Set(answers.map((a) => a.bytes.toString('utf8'))).size).toBe(1);
    // The right token still opens it.
    expect((await download(invoice.hosted_invoice_url)).status).toBe(200);
  });

  it('GET /invoices/{id}/pdf and invoice_pdf give the same PDF, named <number>.pdf, whose text holds the number, each line, each tax, the total and the status', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-pdf');
    const { invoice, m } = open;
    const byKey = await download(`${platform.gatewayUrl}/api/v1/invoices/${invoice.id}/pdf`, m.testKey);
    const byLink = await download(invoice.invoice_pdf);
    for (const answer of [byKey, byLink]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/pdf');
      expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.number}.pdf"`);
    }
    // One state, one PDF: the link and the API give the same bytes.
    expect(byLink.bytes.equals(byKey.bytes)).toBe(true);

    const strings = await pdfStrings(byKey.bytes);
    const text = strings.join('\n');
    expect(text).toContain(invoice.number);
    for (const line of invoice.lines) {
      expect(strings).toContain(line.description);
      expect(strings).toContain(naira(line.amount));
    }
    expect(invoice.total_tax_amounts).toHaveLength(2);
    for (const tax of invoice.total_tax_amounts) {
      expect(text).toContain(tax.display_name);
      expect(strings).toContain(naira(tax.amount));
    }
    expect(strings).toContain(naira(invoice.amount));
    expect(strings).toContain('Open');
    expect(strings).toContain('doc-pdf Cloud Services Ltd');
    expect(strings).toContain('Ada Obi');

    // Another project's key sees no such invoice.
    const stranger = await registerMerchant(api, 'doc-stranger');
    const foreign = await download(`${platform.gatewayUrl}/api/v1/invoices/${invoice.id}/pdf`, stranger.testKey);
    expect([403, 404]).toContain(foreign.status);
    expect(foreign.bytes.toString('utf8')).not.toContain('%PDF');
  });

  it('"Pay" twice in two tabs keeps one charge and refunds the other with a DUPLICATE credit note; PAID and invoice.paid once; PAST_DUE -> ACTIVE; the card used pays the next renewal', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-twice');
    const { invoice, m, payer, subscriptionId } = open;
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('PAST_DUE');
    const pdfBefore = (await download(invoice.invoice_pdf)).bytes;
    expect((await download(invoice.invoice_pdf)).bytes.equals(pdfBefore)).toBe(true);

    // Two tabs press "Pay" and both pay at the provider; then both come back.
    const [tabA, tabB] = await Promise.all([1, 2].map(() => pressPay(`${invoice.hosted_invoice_url}/pay`)));
    expect(tabA).not.toBe(tabB);
    const [backA, backB] = await Promise.all([tabA, tabB].map((url) => payOnSandboxPage(url)));
    const [answerA, answerB] = await Promise.all([backA, backB].map((url) => followCallback(url)));
    const notices = [answerA, answerB].map(
      (answer) => new URL(answer.headers.get('location')!, platform.gatewayUrl).search,
    );
    expect(notices.sort()).toEqual(['?payment=paid', '?payment=refunded']);
    // A reload of either way back applies nothing again.
    await followCallback(backA);

    const amountDue = Math.round(invoice.amount_due * 100);
    await waitFor(
      'the second payment refunded',
      () => moneyAtProvider(payer.email),
      (money) => money.refunds.length === 1,
      10_000,
    );
    expect(await moneyAtProvider(payer.email)).toEqual({
      hostedPayments: [
        [amountDue, 'success'],
        [amountDue, 'success'],
      ],
      refunds: [[amountDue, 'processed']],
    });
    const paid = await invoiceNow(open);
    expect(paid).toMatchObject({
      status: 'PAID',
      amount_paid: invoice.amount_due,
      // The second payment's refund is that payment's, not the invoice's (§23).
      amount_refunded: 0,
      amount_credited: invoice.amount_due,
      credit_notes: [{ id: expect.stringMatching(UUID), number: `${invoice.number}-CN1`, amount: invoice.amount_due }],
    });
    const note = (await get(m, `/credit-notes/${paid.credit_notes[0].id}`)).body;
    expect(note).toMatchObject({ reason: 'DUPLICATE', refund_to: 'CARD', refund_id: expect.stringMatching(UUID) });
    expect(note.tax.map((t: Json) => t.amount)).toEqual(invoice.total_tax_amounts.map((t: Json) => t.amount));
    expect(await paidEvents(invoice.id)).toHaveLength(1);
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('ACTIVE');
    // The PDF of the paid state is another PDF, saying so.
    const pdfAfter = (await download(invoice.invoice_pdf)).bytes;
    expect(pdfAfter.equals(pdfBefore)).toBe(false);
    const after = await pdfStrings(pdfAfter);
    expect(after).toContain('Paid');
    expect(after).toContain(`${invoice.number}-CN1`);
    // The merchant may still credit the invoice in full: the DUPLICATE note credited the second payment.
    const preview = await post(m, `/invoices/${invoice.id}/credit-notes/preview`, {
      amount: invoice.amount,
      reason: 'ORDER_CHANGE',
      refund_to: 'CARD',
    });
    expect([preview.status, preview.body.amount]).toEqual([200, invoice.amount]);

    // The card used on the page pays the next renewal (the declining card no longer does).
    const subscription = (await get(m, `/subscriptions/${subscriptionId}`)).body;
    const to = new Date(Date.parse(subscription.current_period_end) + 60_000).toISOString();
    expect((await post(m, '/test-clock/advance', { to })).status).toBe(200);
    const renewals = (await get(m, `/invoices?subscription_id=${subscriptionId}&limit=10`)).body as Json[];
    const next = renewals.find((i) => i.period_start === subscription.current_period_end);
    expect(next?.status).toBe('PAID');
    const ledger = (await sandbox.ledger({ email: payer.email })).transactions;
    const cardsOfPage = ledger.filter((t) => t.reference.startsWith('hinv-')).map((t) => t.authorization_code);
    const [renewal] = ledger
      .filter((t) => t.channel === 'authorization')
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    expect(renewal).toMatchObject({ amount: amountDue, status: 'success' });
    expect(cardsOfPage).toContain(renewal.authorization_code);
  });

  it('a way back naming a payment this page did not start changes nothing; a PAID invoice offers no Pay and refuses one (409)', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-forged');
    const { invoice, m } = open;
    const forged = await followCallback(`${invoice.hosted_invoice_url}/callback?reference=hinv-forged-000000000000`);
    expect(forged.headers.get('location')).toBe(new URL(invoice.hosted_invoice_url).pathname);
    expect((await invoiceNow(open)).status).toBe('OPEN');

    // The merchant's retry pays it (POST /invoices/{id}/pay with a card that works again).
    expect(
      (await post(m, `/test-helpers/customers/${open.payer.customerId}/card`, { behavior: 'succeed' })).status,
    ).toBe(200);
    expect((await post(m, `/invoices/${invoice.id}/pay`)).status).toBe(200);
    const page = await (await fetch(invoice.hosted_invoice_url)).text();
    expect(page).toContain('Paid');
    expect(page).not.toMatch(/<button type="submit">Pay<\/button>/);
    const refused = await fetch(`${invoice.hosted_invoice_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('This invoice cannot be paid any more.');
    const started = await queryDatabase(
      platform.database('billing'),
      'SELECT reference FROM hosted_invoice_payments WHERE invoice_id = $1',
      [invoice.id],
    );
    expect(started).toEqual([]);
  });

  it('a payer who paid and closed the page before coming back: billing applies the payment on its own, once', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-closed');
    const { invoice, m, subscriptionId } = open;
    await payOnSandboxPage(await pressPay(`${invoice.hosted_invoice_url}/pay`));
    // No callback: PAYMENT_SETTLE_AFTER_MS later, billing asks the provider and applies it.
    await waitFor(
      'the invoice paid by the sweep',
      () => invoiceNow(open),
      (now) => now.status === 'PAID',
      20_000,
    );
    expect((await get(m, `/subscriptions/${subscriptionId}`)).body.status).toBe('ACTIVE');
    expect(await paidEvents(invoice.id)).toHaveLength(1);
    expect((await moneyAtProvider(open.payer.email)).refunds).toEqual([]);
  });

  it('GET /credit-notes/{id}/pdf and credit_note_pdf give the same PDF: the note, its invoice, its amount, its tax and its reason', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'doc-note');
    const { invoice, m } = open;
    await followCallback(await payOnSandboxPage(await pressPay(`${invoice.hosted_invoice_url}/pay`)));
    const note = await post(m, `/invoices/${invoice.id}/credit-notes`, {
      amount: 1000,
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'BALANCE',
      memo: 'Two days without service',
    });
    expect(note.status).toBe(201);
    expect(tokenOf(note.body.credit_note_pdf)).toMatch(TOKEN);
    expect(note.body.credit_note_pdf).toBe(`${platform.gatewayUrl}/cn/${tokenOf(note.body.credit_note_pdf)}/pdf`);
    const byKey = await download(`${platform.gatewayUrl}/api/v1/credit-notes/${note.body.id}/pdf`, m.testKey);
    const byLink = await download(note.body.credit_note_pdf);
    expect([byKey.status, byLink.status]).toEqual([200, 200]);
    expect(byKey.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.number}-CN1.pdf"`);
    expect(byLink.bytes.equals(byKey.bytes)).toBe(true);
    const strings = await pdfStrings(byKey.bytes);
    expect(strings.join('\n')).toContain(`${invoice.number}-CN1`);
    expect(strings).toContain(invoice.number);
    expect(strings).toContain(naira(1000));
    expect(strings).toContain('Product unsatisfactory');
    expect(strings).toContain('Memo: Two days without service');
    for (const tax of note.body.tax) expect(strings).toContain(naira(tax.amount));
    // The invoice's own PDF now lists the note.
    expect(await pdfStrings((await download(invoice.invoice_pdf)).bytes)).toContain(`${invoice.number}-CN1`);
  });
});
