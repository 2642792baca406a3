import { randomUUID } from 'node:crypto';
import type { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  type Api,
  type Json,
  type RegisteredMerchant,
  merchantCalls,
} from './support/api';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';
import { plus, sandboxControlsOf } from './support/test-clock';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Customer balance (docs/api-behaviour.md §20) through the gateway, on test clocks: credit granted
 * with balance adjustments is used by the next invoices before the card is charged, and what the
 * card paid is read from the sandbox provider's own ledger.
 */
describe('customer balance: adjustments and credit applied to invoices (gateway -> billing -> sandbox)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const { post, get } = merchantCalls(() => api);

  async function advance(m: RegisteredMerchant, to: string): Promise<void> {
    const res = await post(m, '/test-clock/advance', { to });
    expect(res.status).toBe(200);
  }

  /** A merchant on a test clock with a monthly plan of `amount` NGN and one paying customer of it. */
  async function merchantWithCustomer(
    label: string,
    amount: number,
  ): Promise<{ m: RegisteredMerchant; planId: string; paid: PaidCheckout }> {
    const m = await registerMerchant(api, label);
    await advance(m, '2027-06-01T09:00:00.000Z');
    const plan = await post(m, '/plans', { name: `${label} monthly`, amount, interval: 'monthly' });
    expect(plan.status).toBe(201);
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, plan.body.id, label);
    return { m, planId: plan.body.id, paid };
  }

  const adjust = (m: RegisteredMerchant, customerId: string, body: unknown, headers?: Record<string, string>) =>
    post(m, `/customers/${customerId}/balance-adjustments`, body, headers);
  const balanceOf = async (m: RegisteredMerchant, customerId: string): Promise<number> => {
    const res = await get(m, `/customers/${customerId}`);
    expect(res.status).toBe(200);
    return res.body.customer.balance;
  };
  const historyOf = async (m: RegisteredMerchant, customerId: string): Promise<Json[]> => {
    const res = await get(m, `/customers/${customerId}/balance-adjustments?limit=100`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const invoicesOf = async (m: RegisteredMerchant, subscriptionId: string): Promise<Json[]> => {
    const res = await get(m, `/invoices?subscription_id=${subscriptionId}&limit=100`);
    expect(res.status).toBe(200);
    return [...res.body].sort((a: Json, b: Json) => Date.parse(a.period_start) - Date.parse(b.period_start));
  };
  /** The provider's own record of the saved card's charges (renewals, retries, API subscriptions). */
  const cardChargesOf = async (email: string) =>
    (await sandbox.ledger({ email })).transactions.filter((t) => t.channel === 'authorization');
  const eventsAbout = (type: string, id: string) =>
    queryDatabase<{ payload: Json }>(
      platform.database('billing'),
      `SELECT payload FROM outbox_events WHERE event_type = $1 AND payload->'data'->>'id' = $2`,
      [type, id],
    );
  /** Moves the clock just past the subscription's current period end: its renewal is processed. */
  async function renew(m: RegisteredMerchant, subscriptionId: string): Promise<string> {
    const { current_period_end: end } = (await get(m, `/subscriptions/${subscriptionId}`)).body;
    await advance(m, plus(end, 60_000));
    return end;
  }

  it('credit of 3,000 on a 10,000 NGN plan: the renewal charges the card 7,000 and the history shows both changes', async () => {
    const { m, paid } = await merchantWithCustomer('credit', 10_000);
    expect(await balanceOf(m, paid.customerId)).toBe(0);

    const granted = await adjust(m, paid.customerId, { amount: 3000, description: 'Goodwill credit' });
    expect(granted.status).toBe(201);
    expect(granted.body).toEqual({
      id: expect.any(String),
      customer_id: paid.customerId,
      type: 'ADJUSTMENT',
      amount: 3000,
      balance_after: 3000,
      currency: 'NGN',
      description: 'Goodwill credit',
      invoice_id: null,
      livemode: false,
      created_at: expect.any(String),
    });
    expect(await balanceOf(m, paid.customerId)).toBe(3000);
    const listed = await get(m, `/customers?email=${encodeURIComponent(paid.email)}`);
    expect(listed.body.map((c: Json) => c.balance)).toEqual([3000]);
    expect(await cardChargesOf(paid.email)).toHaveLength(0);

    const periodEnd = await renew(m, paid.subscriptionId);

    // The provider charged the saved card once, exactly 7,000.00 NGN (kobo).
    const charges = await cardChargesOf(paid.email);
    expect(charges.map((c) => [c.status, c.amount])).toEqual([['success', 700_000]]);
    const renewal = (await invoicesOf(m, paid.subscriptionId))[1];
    expect(renewal).toMatchObject({
      period_start: periodEnd,
      status: 'PAID',
      subtotal: 10_000,
      discount: 0,
      amount: 10_000,
      credit_applied: 3000,
      amount_due: 7000,
      amount_paid: 7000,
    });
    expect(renewal.lines.map((l: Json) => [l.type, l.amount])).toEqual([['SUBSCRIPTION', 10_000]]);
    expect(charges[0].metadata.invoice_id).toBe(renewal.id);
    // The first invoice (the checkout's) used no credit: there was none then.
    const first = (await invoicesOf(m, paid.subscriptionId))[0];
    expect([first.credit_applied, first.amount_due, first.amount_paid]).toEqual([0, 10_000, 10_000]);

    expect(await balanceOf(m, paid.customerId)).toBe(0);
    const history = await historyOf(m, paid.customerId);
    expect(history.map((t) => [t.type, t.amount, t.balance_after, t.invoice_id])).toEqual([
      ['APPLIED_TO_INVOICE', -3000, 0, renewal.id],
      ['ADJUSTMENT', 3000, 3000, null],
    ]);
    expect(history[0].created_at).toBe(periodEnd);

    // Webhook payloads carry the invoice's money too.
    const [paidEvent] = await eventsAbout('invoice.paid', renewal.id);
    expect(paidEvent.payload.data).toMatchObject({
      amount: 10_000,
      discount: 0,
      credit_applied: 3000,
      amount_due: 7000,
    });
    expect(await eventsAbout('subscription.renewed', paid.subscriptionId)).toHaveLength(1);

    // The customer's detail view shows the same money for each invoice.
    const detail = await get(m, `/customers/${paid.customerId}`);
    expect(detail.status).toBe(200);
    const shown = (id: string) => detail.body.invoices.find((i: Json) => i.id === id);
    expect(shown(renewal.id)).toMatchObject({ amount: 10_000, discount: 0, credit_applied: 3000, amount_due: 7000 });
    expect(shown(first.id)).toMatchObject({ amount: 10_000, discount: 0, credit_applied: 0, amount_due: 10_000 });
  });

  it('cancelling a credited period refunds what the card paid, never the credit', async () => {
    const { m, paid } = await merchantWithCustomer('refund', 10_000);
    // Policies take the merchant's token with the key.
    const created = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Full refund', refund_type: 'FULL' },
    });
    expect(created.status).toBe(201);
    expect((await adjust(m, paid.customerId, { amount: 3000 })).status).toBe(201);
    await renew(m, paid.subscriptionId);
    const renewal = (await invoicesOf(m, paid.subscriptionId))[1];
    expect([renewal.status, renewal.amount_paid]).toEqual(['PAID', 7000]);

    const cancelled = await post(m, `/subscriptions/${paid.subscriptionId}/cancel`, { policy_id: created.body.id });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.refund).toMatchObject({ amount: 7000, status: 'PROCESSED', invoice_id: renewal.id });
    const { refunds, transactions } = await sandbox.ledger({ email: paid.email });
    const renewalCharge = transactions.find((t) => t.metadata.invoice_id === renewal.id)!;
    expect(refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([[renewalCharge.reference, 700_000]]);
    expect((await get(m, `/invoices/${renewal.id}`)).body).toMatchObject({ amount_paid: 7000, amount_refunded: 7000 });
    // The credit the invoice used is not given back: it was spent on the period.
    expect(await balanceOf(m, paid.customerId)).toBe(0);
  });

  it('an adjustment that would take the balance below 0 is a 400 and changes nothing; to exactly 0 is fine', async () => {
    const { m, paid } = await merchantWithCustomer('below', 100);
    expect((await adjust(m, paid.customerId, { amount: 1000 })).status).toBe(201);

    const refused = await adjust(m, paid.customerId, { amount: -1500.5, description: 'Too much' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ detail: expect.stringContaining('cannot go below 0') });
    expect(await balanceOf(m, paid.customerId)).toBe(1000);
    expect(await historyOf(m, paid.customerId)).toHaveLength(1);

    const cleared = await adjust(m, paid.customerId, { amount: -1000, description: 'Taken back' });
    expect(cleared.status).toBe(201);
    expect([cleared.body.amount, cleared.body.balance_after]).toEqual([-1000, 0]);
    expect(await balanceOf(m, paid.customerId)).toBe(0);
    expect((await adjust(m, paid.customerId, { amount: -0.01 })).status).toBe(400);
  });

  it('a balance larger than the invoice pays the renewal in full: PAID at amount_due 0, no charge at the provider', async () => {
    const { m, paid } = await merchantWithCustomer('covers', 10_000);
    expect((await adjust(m, paid.customerId, { amount: 25_000 })).status).toBe(201);

    const periodEnd = await renew(m, paid.subscriptionId);

    expect(await cardChargesOf(paid.email)).toHaveLength(0);
    const renewal = (await invoicesOf(m, paid.subscriptionId))[1];
    expect(renewal).toMatchObject({
      period_start: periodEnd,
      status: 'PAID',
      amount: 10_000,
      credit_applied: 10_000,
      amount_due: 0,
      amount_paid: 0,
      paid_at: periodEnd,
    });
    const subscription = (await get(m, `/subscriptions/${paid.subscriptionId}`)).body;
    expect([subscription.status, subscription.current_period_start]).toEqual(['ACTIVE', periodEnd]);
    // The usual consequences of a paid renewal, through the one "invoice paid" path.
    expect(await eventsAbout('invoice.paid', renewal.id)).toHaveLength(1);
    expect(await eventsAbout('subscription.renewed', paid.subscriptionId)).toHaveLength(1);

    expect(await balanceOf(m, paid.customerId)).toBe(15_000);
    const [applied] = await historyOf(m, paid.customerId);
    expect([applied.type, applied.amount, applied.balance_after, applied.invoice_id]).toEqual([
      'APPLIED_TO_INVOICE',
      -10_000,
      15_000,
      renewal.id,
    ]);
  });

  it('two renewals of one customer due together share its balance, one after the other', async () => {
    const { m, planId, paid } = await merchantWithCustomer('shared', 10_000);
    const second = await post(m, '/subscriptions', { customer_id: paid.customerId, plan_id: planId });
    expect(second.status).toBe(201);
    expect((await adjust(m, paid.customerId, { amount: 15_000 })).status).toBe(201);

    // Both periods end moments apart: one advance renews both, in period-end order.
    const { current_period_end: secondEnd } = second.body;
    await advance(m, plus(secondEnd, 60_000));

    const first = (await invoicesOf(m, paid.subscriptionId))[1];
    const next = (await invoicesOf(m, second.body.id))[1];
    expect([first.status, first.credit_applied, first.amount_due]).toEqual(['PAID', 10_000, 0]);
    expect([next.status, next.credit_applied, next.amount_due, next.amount_paid]).toEqual(['PAID', 5000, 5000, 5000]);
    // The API subscription's first period, then the second renewal's 5,000.
    expect((await cardChargesOf(paid.email)).map((c) => [c.status, c.amount])).toEqual([
      ['success', 1_000_000],
      ['success', 500_000],
    ]);
    expect(await balanceOf(m, paid.customerId)).toBe(0);
    const history = await historyOf(m, paid.customerId);
    expect(history.map((t) => [t.type, t.amount, t.balance_after, t.invoice_id])).toEqual([
      ['APPLIED_TO_INVOICE', -5000, 0, next.id],
      ['APPLIED_TO_INVOICE', -10_000, 5000, first.id],
      ['ADJUSTMENT', 15_000, 15_000, null],
    ]);
  });

  it('POST /subscriptions uses the balance on its first invoice: in full without a charge, then partly', async () => {
    const { m, planId, paid } = await merchantWithCustomer('api-first', 10_000);
    expect((await adjust(m, paid.customerId, { amount: 15_000 })).status).toBe(201);

    const covered = await post(m, '/subscriptions', { customer_id: paid.customerId, plan_id: planId });
    expect(covered.status).toBe(201);
    const [coveredInvoice] = await invoicesOf(m, covered.body.id);
    expect(coveredInvoice).toMatchObject({ status: 'PAID', credit_applied: 10_000, amount_due: 0, amount_paid: 0 });
    expect(await cardChargesOf(paid.email)).toHaveLength(0);

    const partly = await post(m, '/subscriptions', { customer_id: paid.customerId, plan_id: planId });
    expect(partly.status).toBe(201);
    const [partlyInvoice] = await invoicesOf(m, partly.body.id);
    expect(partlyInvoice).toMatchObject({
      status: 'PAID',
      credit_applied: 5000,
      amount_due: 5000,
      amount_paid: 5000,
    });
    expect((await cardChargesOf(paid.email)).map((c) => [c.status, c.amount])).toEqual([['success', 500_000]]);
    expect(await balanceOf(m, paid.customerId)).toBe(0);
    expect((await historyOf(m, paid.customerId)).map((t) => [t.type, t.amount, t.balance_after])).toEqual([
      ['APPLIED_TO_INVOICE', -5000, 0],
      ['APPLIED_TO_INVOICE', -10_000, 5000],
      ['ADJUSTMENT', 15_000, 15_000],
    ]);
  });

  it('a declined renewal keeps its credit applied; dunning retries charge amount_due only', async () => {
    const { m, paid } = await merchantWithCustomer('dunning', 10_000);
    expect((await adjust(m, paid.customerId, { amount: 3000 })).status).toBe(201);
    const card = async (behavior: string) =>
      expect((await post(m, `/test-helpers/customers/${paid.customerId}/card`, { behavior })).status).toBe(200);
    await card('decline');

    const periodEnd = await renew(m, paid.subscriptionId);
    const open = (await invoicesOf(m, paid.subscriptionId))[1];
    expect(open).toMatchObject({ status: 'OPEN', credit_applied: 3000, amount_due: 7000, amount_paid: 0 });
    expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body.status).toBe('PAST_DUE');
    expect(await balanceOf(m, paid.customerId)).toBe(0);

    await card('succeed');
    await advance(m, plus(periodEnd, DAY_MS + 60_000));
    const retried = (await get(m, `/invoices/${open.id}`)).body;
    expect(retried).toMatchObject({ status: 'PAID', credit_applied: 3000, amount_due: 7000, amount_paid: 7000 });
    expect((await cardChargesOf(paid.email)).map((c) => [c.status, c.amount])).toEqual([
      ['failed', 700_000],
      ['success', 700_000],
    ]);
    expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body.status).toBe('ACTIVE');
    expect(await balanceOf(m, paid.customerId)).toBe(0);
    expect(await historyOf(m, paid.customerId)).toHaveLength(2);
  });

  it('voiding an invoice gives the credit it used back to the balance', async () => {
    const { m, paid } = await merchantWithCustomer('void', 10_000);
    expect((await adjust(m, paid.customerId, { amount: 4000 })).status).toBe(201);
    expect((await post(m, `/test-helpers/customers/${paid.customerId}/card`, { behavior: 'decline' })).status).toBe(
      200,
    );
    await renew(m, paid.subscriptionId);
    const open = (await invoicesOf(m, paid.subscriptionId))[1];
    expect([open.status, open.credit_applied]).toEqual(['OPEN', 4000]);
    expect(await balanceOf(m, paid.customerId)).toBe(0);

    const voided = await post(m, `/invoices/${open.id}/void`);
    expect([voided.status, voided.body.status]).toEqual([200, 'VOID']);
    expect(await balanceOf(m, paid.customerId)).toBe(4000);
    const [returned] = await historyOf(m, paid.customerId);
    expect([returned.type, returned.amount, returned.balance_after, returned.invoice_id]).toEqual([
      'APPLIED_TO_INVOICE',
      4000,
      4000,
      open.id,
    ]);
  });

  it('validates the body (422), refuses another project (403) and unknown ids (404), and replays an Idempotency-Key', async () => {
    const { m, paid } = await merchantWithCustomer('rules', 100);
    for (const [body, type] of [
      [{ amount: 0 }, 'value_error'],
      [{ amount: 'ten' }, 'float_type'],
      [{ amount: 10.001 }, 'value_error'],
      [{}, 'missing'],
    ] as const) {
      const res = await adjust(m, paid.customerId, body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'amount'], type })]);
    }
    expect(await historyOf(m, paid.customerId)).toEqual([]);

    const other = await registerMerchant(api, 'other');
    const across = await api('POST', `/api/v1/customers/${paid.customerId}/balance-adjustments`, {
      apiKey: other.testKey,
      body: { amount: 50 },
    });
    expect(across.status).toBe(403);
    const acrossList = await api('GET', `/api/v1/customers/${paid.customerId}/balance-adjustments`, {
      apiKey: other.testKey,
    });
    expect(acrossList.status).toBe(403);
    expect((await adjust(m, randomUUID(), { amount: 50 })).status).toBe(404);
    expect((await adjust(m, 'not-an-id', { amount: 50 })).status).toBe(404);
    expect((await get(m, `/customers/${randomUUID()}/balance-adjustments`)).status).toBe(404);
    expect(await balanceOf(m, paid.customerId)).toBe(0);

    const key = { 'Idempotency-Key': `adjust-${randomUUID()}` };
    const first = await adjust(m, paid.customerId, { amount: 20, description: 'Once' }, key);
    const again = await adjust(m, paid.customerId, { amount: 20, description: 'Once' }, key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await adjust(m, paid.customerId, { amount: 30 }, key)).status).toBe(409);
    expect(await balanceOf(m, paid.customerId)).toBe(20);

    // Paging as every list: newest first, starting_after the last id of a page.
    expect((await adjust(m, paid.customerId, { amount: 1 })).status).toBe(201);
    expect((await adjust(m, paid.customerId, { amount: 2 })).status).toBe(201);
    const page1 = await get(m, `/customers/${paid.customerId}/balance-adjustments?limit=2`);
    expect(page1.body.map((t: Json) => t.amount)).toEqual([2, 1]);
    const page2 = await get(
      m,
      `/customers/${paid.customerId}/balance-adjustments?limit=2&starting_after=${page1.body[1].id}`,
    );
    expect(page2.body.map((t: Json) => t.amount)).toEqual([20]);
    expect(
      (await get(m, `/customers/${paid.customerId}/balance-adjustments?starting_after=${randomUUID()}`)).status,
    ).toBe(400);
  });
});
