import { randomUUID } from 'node:crypto';
import type { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, sharedPlatform, type SharedPlatform } from '@billing/testing';
import type { Api, Json, RegisteredMerchant } from './support/api';
import { gatewayApi, ISO_UTC, merchantCalls, registerMerchant, UUID } from './support/api';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { plus, sandboxControlsOf } from './support/test-clock';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';
import { waitFor } from './support/wait';

/**
 * Credit notes (docs/api-behaviour.md §23) through the gateway: every process real, money checked
 * in the sandbox provider's own ledger and in the invoice and balance the API shows, events in
 * billing's outbox and at a webhook receiver. A note surviving a crash of billing:
 * crashes-and-outages.test.ts (it kills billing, so it needs a platform of its own).
 */
describe('credit notes (gateway -> billing -> sandbox provider)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;
  let receiver: WebhookReceiver | undefined;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => Promise.all([receiver?.close(), platform?.stop()]));

  const { post, get } = merchantCalls(() => api);
  const credit = (m: RegisteredMerchant, invoiceId: string, body: Json, headers?: Record<string, string>) =>
    post(m, `/invoices/${invoiceId}/credit-notes`, body, headers);
  const preview = (m: RegisteredMerchant, invoiceId: string, body: Json) =>
    post(m, `/invoices/${invoiceId}/credit-notes/preview`, body);

  /** Issuing and its preview both answer 400 with `detail`. */
  async function expectRefused(m: RegisteredMerchant, invoiceId: string, body: Json, detail: string) {
    for (const send of [credit, preview])
      expect(await send(m, invoiceId, body)).toMatchObject({ status: 400, body: { detail } });
  }

  /** A merchant whose customer paid a hosted checkout of a monthly plan of `amount` NGN. */
  async function paidInvoice(label: string, amount = 100, m?: RegisteredMerchant) {
    const merchant = m ?? (await registerMerchant(api, label));
    const plan = await post(merchant, '/plans', { name: `Plan ${label}`, amount });
    expect(plan.status).toBe(201);
    const paid = await payHostedCheckout(api, platform.gatewayUrl, merchant.testKey, plan.body.id, label);
    const [invoice] = (await get(merchant, `/invoices?subscription_id=${paid.subscriptionId}`)).body;
    expect(invoice).toMatchObject({
      status: 'PAID',
      amount,
      amount_paid: amount,
      amount_credited: 0,
      credit_notes: [],
    });
    return { m: merchant, paid, invoice: invoice as Json };
  }

  const invoiceOf = async (m: RegisteredMerchant, id: string) => (await get(m, `/invoices/${id}`)).body;
  const refundsAtProvider = async (paid: PaidCheckout) =>
    (await sandbox.ledger({ email: paid.email })).refunds.map((r) => [r.amount, r.status]);
  const outboxNotes = async (noteId: string) =>
    (
      await queryDatabase<{ payload: Json }>(
        platform.database('billing'),
        `SELECT payload FROM outbox_events WHERE event_type = 'credit_note.created' AND payload->'data'->>'id' = $1`,
        [noteId],
      )
    ).map((row) => row.payload);

  it('a note to the card refunds its amount once at the provider, counts in amount_refunded and amount_credited, and sends credit_note.created', async () => {
    const { m, paid, invoice } = await paidInvoice('card');
    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: m.testKey,
      token: m.token,
      body: { url: `${receiver!.url}/hooks`, events: ['credit_note.created'] },
    });
    expect(hook.status).toBe(201);

    const res = await credit(m, invoice.id, {
      amount: 30.5,
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'CARD',
      memo: 'Two days without service',
    });
    expect(res.status).toBe(201);
    const note = res.body;
    expect(note).toEqual({
      id: expect.stringMatching(UUID),
      number: `${invoice.number}-CN1`,
      invoice_id: invoice.id,
      customer_id: paid.customerId,
      amount: 30.5,
      currency: 'NGN',
      tax: [],
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'CARD',
      refund_id: expect.stringMatching(UUID),
      balance_transaction_id: null,
      memo: 'Two days without service',
      status: 'ISSUED',
      credit_note_pdf: expect.stringMatching(/\/cn\/[0-9a-f]{32}[A-Za-z0-9_-]{43}\/pdf$/),
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
    });
    expect((await get(m, `/credit-notes/${note.id}`)).body).toEqual(note);

    // The refund went to the provider with the answer: one refund of 30.50 NGN (minor units there).
    expect(await refundsAtProvider(paid)).toEqual([[3050, 'processed']]);
    expect(await invoiceOf(m, invoice.id)).toMatchObject({
      status: 'PAID',
      amount_paid: 100,
      amount_refunded: 30.5,
      amount_credited: 30.5,
      credit_notes: [{ id: note.id, number: note.number, amount: 30.5 }],
    });

    // Recorded with the note, and delivered to the merchant's webhook.
    expect(await outboxNotes(note.id)).toEqual([expect.objectContaining({ data: note })]);
    expect((await receiver!.delivered('credit_note.created', note.id)).data).toEqual(note);
  });

  it("a note to the balance credits the customer's balance with a CREDIT_NOTE entry and refunds nothing", async () => {
    const { m, paid, invoice } = await paidInvoice('balance');
    const res = await credit(m, invoice.id, { amount: 40, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      number: `${invoice.number}-CN1`,
      amount: 40,
      refund_to: 'BALANCE',
      refund_id: null,
      balance_transaction_id: expect.stringMatching(UUID),
      memo: null,
    });

    const customer = (await get(m, `/customers/${paid.customerId}`)).body.customer;
    expect([customer.balance, customer.balance_currency]).toEqual([40, 'NGN']);
    const history = (await get(m, `/customers/${paid.customerId}/balance-adjustments`)).body;
    expect(history).toEqual([
      expect.objectContaining({
        id: res.body.balance_transaction_id,
        type: 'CREDIT_NOTE',
        amount: 40,
        balance_after: 40,
        currency: 'NGN',
        invoice_id: invoice.id,
      }),
    ]);
    expect(await refundsAtProvider(paid)).toEqual([]);
    expect(await invoiceOf(m, invoice.id)).toMatchObject({ amount_refunded: 0, amount_credited: 40 });
    expect(await outboxNotes(res.body.id)).toHaveLength(1);
  });

  it('a note to a balance kept in another currency is refused (400) and changes nothing', async () => {
    const { m, paid, invoice } = await paidInvoice('balance-currency');
    const usd = await post(m, `/customers/${paid.customerId}/balance-adjustments`, { amount: 5, currency: 'USD' });
    expect(usd.status).toBe(201);
    const body = { amount: 10, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' };
    await expectRefused(m, invoice.id, body, "The customer's balance is in USD; a change in NGN cannot be made to it");
    expect((await get(m, `/customers/${paid.customerId}`)).body.customer).toMatchObject({ balance: 5 });
    expect((await invoiceOf(m, invoice.id)).credit_notes).toEqual([]);
  });

  it('the preview is exactly what issuing then does, and changes nothing', async () => {
    const { m, paid, invoice } = await paidInvoice('preview', 99.99);
    const body = { amount: 33.33, reason: 'DUPLICATE', refund_to: 'CARD', memo: 'Charged twice' };
    const previewed = await preview(m, invoice.id, body);
    expect(previewed.status).toBe(200);
    expect(previewed.body).toEqual({
      amount: 33.33,
      currency: 'NGN',
      tax: [],
      reason: 'DUPLICATE',
      refund_to: 'CARD',
      memo: 'Charged twice',
    });
    expect(await refundsAtProvider(paid)).toEqual([]);
    expect((await invoiceOf(m, invoice.id)).amount_credited).toBe(0);

    const issued = await credit(m, invoice.id, body);
    expect(issued.status).toBe(201);
    const { amount, currency, tax, reason, refund_to, memo } = issued.body;
    expect({ amount, currency, tax, reason, refund_to, memo }).toEqual(previewed.body);
  });

  it('notes never sum above the invoice amount: 400 saying what remains, the same in the preview, nothing issued', async () => {
    const { m, paid, invoice } = await paidInvoice('over-amount');
    expect((await credit(m, invoice.id, { amount: 70, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' })).status).toBe(
      201,
    );
    const body = { amount: 30.01, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' };
    const detail = 'The credit notes of an invoice never sum above its amount: 30.00 NGN remain to credit';
    await expectRefused(m, invoice.id, body, detail);
    // Exactly what remains is fine.
    expect((await credit(m, invoice.id, { ...body, amount: 30 })).status).toBe(201);
    expect(await invoiceOf(m, invoice.id)).toMatchObject({ amount_credited: 100 });
    expect((await get(m, `/customers/${paid.customerId}`)).body.customer.balance).toBe(100);
  });

  it('two notes sent at once that together exceed the invoice: one issued, the other refused, the card refunded once', async () => {
    const { m, paid, invoice } = await paidInvoice('racing');
    const body = { amount: 60, reason: 'ORDER_CHANGE', refund_to: 'CARD' };
    const answers = await Promise.all([credit(m, invoice.id, body), credit(m, invoice.id, body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400]);
    expect(answers.find((a) => a.status === 400)?.body.detail).toContain('40.00 NGN remain');
    const after = await invoiceOf(m, invoice.id);
    expect(after).toMatchObject({
      amount_credited: 60,
      credit_notes: [{ number: `${invoice.number}-CN1`, amount: 60 }],
    });
    await waitFor(
      'the refund processed',
      () => refundsAtProvider(paid),
      (refunds) => refunds.length === 1,
      10_000,
    );
    expect(await refundsAtProvider(paid)).toEqual([[6000, 'processed']]);
  });

  it('a note to the card never exceeds what the card paid less refunds (400), though the balance may take the rest', async () => {
    const m = await registerMerchant(api, 'card-limit');
    const { paid } = await paidInvoice('card-limit', 100, m);
    // The renewal uses 30 of credit, so the card pays 70 of its 100.
    expect((await post(m, `/customers/${paid.customerId}/balance-adjustments`, { amount: 30 })).status).toBe(201);
    const subscription = (await get(m, `/subscriptions/${paid.subscriptionId}`)).body;
    const advanced = await post(m, '/test-clock/advance', { to: plus(subscription.current_period_end, 60_000) });
    expect(advanced.status).toBe(200);
    const renewal = (await get(m, `/invoices?subscription_id=${paid.subscriptionId}&status=PAID`)).body.find(
      (i: Json) => i.credit_applied === 30,
    );
    expect(renewal).toMatchObject({ amount: 100, credit_applied: 30, amount_paid: 70 });

    const refused = await credit(m, renewal.id, { amount: 70.01, reason: 'FRAUDULENT', refund_to: 'CARD' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      'A credit note to the card never exceeds what was paid less what was refunded: 70.00 NGN remain',
    );
    const toCard = await credit(m, renewal.id, { amount: 50, reason: 'FRAUDULENT', refund_to: 'CARD' });
    expect(toCard.status).toBe(201);
    const again = await credit(m, renewal.id, { amount: 20.01, reason: 'FRAUDULENT', refund_to: 'CARD' });
    expect([again.status, again.body.detail]).toEqual([
      400,
      'A credit note to the card never exceeds what was paid less what was refunded: 20.00 NGN remain',
    ]);
    expect((await credit(m, renewal.id, { amount: 50, reason: 'FRAUDULENT', refund_to: 'BALANCE' })).status).toBe(201);
    expect(await invoiceOf(m, renewal.id)).toMatchObject({ amount_refunded: 50, amount_credited: 100 });
    expect(await refundsAtProvider(paid)).toEqual([[5000, 'processed']]);
  });

  it('an invoice that is not PAID takes no note (400)', async () => {
    const { m, paid } = await paidInvoice('not-paid');
    expect((await post(m, `/test-helpers/customers/${paid.customerId}/card`, { behavior: 'decline' })).status).toBe(
      200,
    );
    const subscription = (await get(m, `/subscriptions/${paid.subscriptionId}`)).body;
    expect((await post(m, '/test-clock/advance', { to: plus(subscription.current_period_end, 60_000) })).status).toBe(
      200,
    );
    const [open] = (await get(m, `/invoices?subscription_id=${paid.subscriptionId}&status=OPEN`)).body;
    const body = { amount: 10, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' };
    await expectRefused(m, open.id, body, 'Only a PAID invoice can be credited; this one is OPEN');
  });

  it('malformed bodies are 422s naming the field, and issue nothing', async () => {
    const { m, invoice } = await paidInvoice('malformed');
    const valid = { amount: 10, reason: 'ORDER_CHANGE', refund_to: 'CARD' };
    for (const [body, loc] of [
      [{ ...valid, amount: 0 }, 'amount'],
      [{ ...valid, amount: -5 }, 'amount'],
      [{ ...valid, amount: 10.001 }, 'amount'],
      [{ ...valid, amount: '10' }, 'amount'],
      [{ ...valid, reason: 'CHANGED_MIND' }, 'reason'],
      [{ ...valid, reason: undefined }, 'reason'],
      [{ ...valid, refund_to: 'WALLET' }, 'refund_to'],
      [{ ...valid, memo: 'x'.repeat(501) }, 'memo'],
    ] as const) {
      for (const send of [credit, preview]) {
        const res = await send(m, invoice.id, body);
        expect([res.status, res.body.detail.map((d: Json) => d.loc)]).toEqual([422, [['body', loc]]]);
      }
    }
    expect((await credit(m, invoice.id, { ...valid, memo: 'x'.repeat(500) })).status).toBe(201);
    expect((await invoiceOf(m, invoice.id)).credit_notes).toHaveLength(1);
  });

  it('unknown ids are 404; another project’s invoice and note are 403; the live key sees no test note', async () => {
    const { m, invoice } = await paidInvoice('ids');
    const note = (await credit(m, invoice.id, { amount: 5, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' })).body;
    const body = { amount: 5, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' };
    for (const id of [randomUUID(), 'not-an-id']) {
      expect((await credit(m, id, body)).status).toBe(404);
      expect((await preview(m, id, body)).status).toBe(404);
      expect((await get(m, `/credit-notes/${id}`)).status).toBe(404);
    }
    const other = await registerMerchant(api, 'ids-other');
    expect((await credit(other, invoice.id, body)).status).toBe(403);
    expect((await preview(other, invoice.id, body)).status).toBe(403);
    expect(await get(other, `/credit-notes/${note.id}`)).toMatchObject({
      status: 403,
      body: { detail: 'Credit note belongs to another project' },
    });
    expect((await get(other, `/credit-notes?invoice_id=${invoice.id}`)).body).toEqual([]);
    const live = await api('GET', `/api/v1/credit-notes/${note.id}`, { apiKey: m.liveKey });
    expect(live.status).toBe(404);
    expect((await invoiceOf(m, invoice.id)).credit_notes).toHaveLength(1);
  });

  it('numbers run CN1, CN2 per invoice, and the list filters by invoice and customer, newest first, paged', async () => {
    const m = await registerMerchant(api, 'numbering');
    const first = await paidInvoice('numbering-a', 100, m);
    const second = await paidInvoice('numbering-b', 100, m);
    const issue = async (invoiceId: string, amount: number) => {
      const res = await credit(m, invoiceId, { amount, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' });
      expect(res.status).toBe(201);
      return res.body;
    };
    const a1 = await issue(first.invoice.id, 1);
    const b1 = await issue(second.invoice.id, 2);
    const a2 = await issue(first.invoice.id, 3);
    expect([a1.number, a2.number, b1.number]).toEqual([
      `${first.invoice.number}-CN1`,
      `${first.invoice.number}-CN2`,
      `${second.invoice.number}-CN1`,
    ]);

    const ids = async (query: string) => (await get(m, `/credit-notes${query}`)).body.map((n: Json) => n.id);
    expect(await ids('')).toEqual([a2.id, b1.id, a1.id]);
    expect(await ids(`?invoice_id=${first.invoice.id}`)).toEqual([a2.id, a1.id]);
    expect(await ids(`?customer_id=${second.paid.customerId}`)).toEqual([b1.id]);
    expect(await ids(`?invoice_id=${first.invoice.id}&customer_id=${second.paid.customerId}`)).toEqual([]);
    expect(await ids('?invoice_id=not-an-id')).toEqual([]);
    expect(await ids('?limit=2')).toEqual([a2.id, b1.id]);
    expect(await ids(`?limit=2&starting_after=${b1.id}`)).toEqual([a1.id]);
    expect((await get(m, `/credit-notes?starting_after=${randomUUID()}`)).status).toBe(400);
    expect((await get(m, '/credit-notes?limit=0')).status).toBe(422);
    expect((await invoiceOf(m, first.invoice.id)).credit_notes).toEqual([
      { id: a1.id, number: a1.number, amount: 1 },
      { id: a2.id, number: a2.number, amount: 3 },
    ]);
  });

  it('a retried POST with the same Idempotency-Key returns the same note and refunds once, also when the gateway lost the answer', async () => {
    const { m, paid, invoice } = await paidInvoice('idempotent');
    const body = { amount: 12, reason: 'DUPLICATE', refund_to: 'CARD' };
    const headers = { 'Idempotency-Key': `note-${randomUUID()}` };
    const first = await credit(m, invoice.id, body, headers);
    const replayed = await credit(m, invoice.id, body, headers);
    expect([first.status, replayed.status]).toEqual([201, 201]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);

    // As after a gateway timeout: the gateway kept no answer, so the retry reaches billing, which
    // finds the note its key was stored with.
    await queryDatabase(platform.database('gateway'), `DELETE FROM idempotency_records WHERE idempotency_key = $1`, [
      headers['Idempotency-Key'],
    ]);
    const retried = await credit(m, invoice.id, body, headers);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toEqual(first.body);

    expect(await refundsAtProvider(paid)).toEqual([[1200, 'processed']]);
    expect(await invoiceOf(m, invoice.id)).toMatchObject({ amount_refunded: 12, amount_credited: 12 });
    expect((await credit(m, invoice.id, { ...body, amount: 13 }, headers)).status).toBe(409);
  });

  it('a cancellation refunded by its policy has its ORDER_CHANGE note; after a note to the balance it refunds only what remains', async () => {
    const m = await registerMerchant(api, 'cancel');
    const policy = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Full', refund_type: 'FULL', is_default: true },
    });
    expect(policy.status).toBe(201);

    const whole = await paidInvoice('cancel-whole', 100, m);
    const cancelled = await post(m, `/subscriptions/${whole.paid.subscriptionId}/cancel`);
    expect(cancelled.status).toBe(200);
    const refund = cancelled.body.refund;
    expect(refund).toMatchObject({ id: expect.stringMatching(UUID), amount: 100, status: 'PROCESSED' });
    const notes = (await get(m, `/credit-notes?invoice_id=${whole.invoice.id}`)).body;
    expect(notes).toEqual([
      expect.objectContaining({
        number: `${whole.invoice.number}-CN1`,
        amount: 100,
        reason: 'ORDER_CHANGE',
        refund_to: 'CARD',
        refund_id: refund.id,
        balance_transaction_id: null,
      }),
    ]);
    expect(await invoiceOf(m, whole.invoice.id)).toMatchObject({ amount_refunded: 100, amount_credited: 100 });
    expect(await refundsAtProvider(whole.paid)).toEqual([[10000, 'processed']]);
    expect(await outboxNotes(notes[0].id)).toHaveLength(1);
    // The platform's own note is a note like any other: nothing remains to credit.
    expect(
      (await credit(m, whole.invoice.id, { amount: 1, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' })).status,
    ).toBe(400);

    // 30 went back to the balance already: the policy's refund gives back the other 70, not 100.
    const part = await paidInvoice('cancel-part', 100, m);
    expect(
      (await credit(m, part.invoice.id, { amount: 30, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' })).status,
    ).toBe(201);
    const previewed = await post(m, `/subscriptions/${part.paid.subscriptionId}/cancel/preview`);
    expect(previewed.body.refund).toMatchObject({ amount: 70 });
    const partCancel = await post(m, `/subscriptions/${part.paid.subscriptionId}/cancel`);
    expect(partCancel.body.refund).toMatchObject({ amount: 70, status: 'PROCESSED' });
    expect(
      (await get(m, `/credit-notes?invoice_id=${part.invoice.id}`)).body.map((n: Json) => [
        n.number,
        n.amount,
        n.refund_to,
      ]),
    ).toEqual([
      [`${part.invoice.number}-CN2`, 70, 'CARD'],
      [`${part.invoice.number}-CN1`, 30, 'BALANCE'],
    ]);
    expect(await invoiceOf(m, part.invoice.id)).toMatchObject({ amount_refunded: 70, amount_credited: 100 });
  });

  it("a taxed invoice's notes carry back each rate's share of its tax, the last exactly what remains", async () => {
    // A customer with a saved card, then a subscription with 7.5% exclusive VAT: 10,000 + 750.
    const { m, paid } = await paidInvoice('taxed');
    const vat = await post(m, '/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive: false });
    const plan = await post(m, '/plans', { name: 'Taxed', amount: 10_000 });
    const subscription = await post(m, '/subscriptions', {
      customer_id: paid.customerId,
      plan_id: plan.body.id,
      tax_rate_ids: [vat.body.id],
    });
    expect([vat.status, plan.status, subscription.status]).toEqual([201, 201, 201]);
    const [invoice] = (await get(m, `/invoices?subscription_id=${subscription.body.id}`)).body;
    expect(invoice).toMatchObject({ status: 'PAID', amount: 10_750, tax: 750, amount_paid: 10_750 });

    // 750 x 1,000 / 10,750 = 69.767... -> 69.77; the note closing the invoice takes the rest.
    const first = await credit(m, invoice.id, { amount: 1_000, reason: 'ORDER_CHANGE', refund_to: 'BALANCE' });
    const last = await credit(m, invoice.id, { amount: 9_750, reason: 'ORDER_CHANGE', refund_to: 'CARD' });
    expect([first.status, first.body.tax]).toEqual([201, [{ tax_rate_id: vat.body.id, amount: 69.77 }]]);
    expect([last.status, last.body.tax]).toEqual([201, [{ tax_rate_id: vat.body.id, amount: 680.23 }]]);
    expect(await invoiceOf(m, invoice.id)).toMatchObject({ amount_credited: 10_750, amount_refunded: 9_750 });
  });
});
