import { randomUUID } from 'node:crypto';
import { SandboxControlsClient, type SandboxLedger } from '@billing/payments';
import { queryDatabase, sharedPlatform, type SharedPlatform } from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  UUID,
  type Api,
  type Json,
  type RegisteredMerchant,
  merchantCalls,
} from './support/api';
import { payHostedCheckout, type PaidCheckout } from './support/hosted-checkout';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Refunds on cancellation (docs/api-behaviour.md §8, 10, 11, 12, 16.4, 16.18) through the gateway: billing asks
 * the policy service for the refund and gives it back through the sandbox provider. Every
 * process is real; money is checked in the sandbox provider's own ledger. Cancels while policy
 * or the provider is down: crashes-and-outages.test.ts (it stops them).
 */
describe('refunds on cancellation (gateway -> billing -> policy + sandbox provider)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;
  /** Every refund the API reported with an amount, by customer e-mail, for the ledger check. */
  const reported = new Map<string, Json[]>();

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
  });
  afterAll(() => platform?.stop());

  const { post, get } = merchantCalls(() => api);

  /** A cancellation policy (dual auth: the project's key and its merchant's JWT). */
  async function policy(m: RegisteredMerchant, body: Json): Promise<string> {
    const res = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Policy', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function plan(m: RegisteredMerchant, body: Json): Promise<string> {
    const res = await post(m, '/plans', { name: 'Plan', ...body });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const checkout = (m: RegisteredMerchant, planId: string, label: string) =>
    payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, label);

  async function advance(m: RegisteredMerchant, to: Date): Promise<void> {
    const res = await post(m, '/test-clock/advance', { to: to.toISOString() });
    expect(res.status).toBe(200);
  }

  async function preview(m: RegisteredMerchant, subscriptionId: string, body: Json = {}): Promise<Json> {
    const res = await post(m, `/subscriptions/${subscriptionId}/cancel/preview`, body);
    expect(res.status).toBe(200);
    return res.body.refund;
  }

  /** Cancels now; remembers the refund for the ledger check. */
  async function cancel(m: RegisteredMerchant, paid: PaidCheckout, body: Json = {}): Promise<Json> {
    const res = await post(m, `/subscriptions/${paid.subscriptionId}/cancel`, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: paid.subscriptionId, status: 'CANCELLED', cancelled_by: 'MERCHANT' });
    if (res.body.refund?.amount > 0) reported.set(paid.email, [...(reported.get(paid.email) ?? []), res.body.refund]);
    return res.body.refund;
  }

  async function firstInvoice(m: RegisteredMerchant, subscriptionId: string): Promise<Json> {
    const res = await get(m, `/invoices?subscription_id=${subscriptionId}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    return res.body[0];
  }

  const ledgerOf = (email: string): Promise<SandboxLedger> => sandbox.ledger({ email });

  async function eventsOf(subscriptionId: string, type: string): Promise<Json[]> {
    const rows = await queryDatabase<{ payload: Json }>(
      platform.database('billing'),
      `SELECT payload FROM outbox_events WHERE event_type = $1
          AND (payload->'data'->>'id' = $2 OR payload->'data'->>'subscription_id' = $2) ORDER BY created_at`,
      [type, subscriptionId],
    );
    return rows.map((r) => r.payload.data);
  }

  /** A preview and the cancel's refund agree on everything but the id and the status. */
  const quoted = ({ id: _id, status: _status, ...rest }: Json) => rest;

  it('a FULL policy refunds the paid amount: provider refund, amount_refunded, events; the preview said so', async () => {
    const m = await registerMerchant(api, 'full');
    const policyId = await policy(m, { refund_type: 'FULL', is_default: true });
    const paid = await checkout(m, await plan(m, { amount: 50.5 }), 'full');
    const invoice = await firstInvoice(m, paid.subscriptionId);

    const previewed = await preview(m, paid.subscriptionId);
    expect(previewed).toEqual({
      id: null,
      amount: 50.5,
      currency: 'NGN',
      status: 'PENDING',
      policy_id: policyId,
      invoice_id: invoice.id,
      livemode: false,
    });
    // The preview changed nothing.
    expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body.status).toBe('ACTIVE');
    expect((await ledgerOf(paid.email)).refunds).toEqual([]);

    const refund = await cancel(m, paid, { reason: 'moving away' });
    expect(refund).toEqual({ ...previewed, id: expect.stringMatching(UUID), status: 'PROCESSED' });
    expect(quoted(refund)).toEqual(quoted(previewed));

    const after = (await get(m, `/invoices/${invoice.id}`)).body;
    expect([after.status, after.amount_paid, after.amount_refunded]).toEqual(['PAID', 50.5, 50.5]);
    const ledger = await ledgerOf(paid.email);
    expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([
      [ledger.transactions[0].reference, 5050],
    ]);

    const [cancelled] = await eventsOf(paid.subscriptionId, 'subscription.cancelled');
    expect(cancelled).toMatchObject({ id: paid.subscriptionId, status: 'CANCELLED' });
    // Written with the cancellation, before the provider was asked.
    expect(cancelled.refund).toEqual({ ...refund, status: 'PENDING' });
    expect(await eventsOf(paid.subscriptionId, 'refund.processed')).toEqual([
      { ...refund, subscription_id: paid.subscriptionId },
    ]);
  });

  it('a repeated cancel does not refund twice, nor do two cancels racing', async () => {
    const m = await registerMerchant(api, 'twice');
    await policy(m, { refund_type: 'FULL', is_default: true });
    const planId = await plan(m, { amount: 20 });

    const once = await checkout(m, planId, 'once');
    expect((await cancel(m, once)).amount).toBe(20);
    const again = await post(m, `/subscriptions/${once.subscriptionId}/cancel`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: expect.any(String) });
    expect((await post(m, `/subscriptions/${once.subscriptionId}/cancel/preview`)).status).toBe(400);

    const raced = await checkout(m, planId, 'raced');
    const answers = await Promise.all([0, 1, 2].map(() => post(m, `/subscriptions/${raced.subscriptionId}/cancel`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
    const winner = answers.find((a) => a.status === 200)!.body;
    expect(winner.refund).toMatchObject({ amount: 20, status: 'PROCESSED' });
    reported.set(raced.email, [winner.refund]);

    for (const paid of [once, raced]) {
      expect((await ledgerOf(paid.email)).refunds.map((r) => r.amount)).toEqual([2000]);
      expect((await firstInvoice(m, paid.subscriptionId)).amount_refunded).toBe(20);
      expect(await eventsOf(paid.subscriptionId, 'refund.processed')).toHaveLength(1);
      expect(await eventsOf(paid.subscriptionId, 'subscription.cancelled')).toHaveLength(1);
    }
  });

  it("a prorated PARTIAL policy at half the period refunds half of the percentage (project's test clock)", async () => {
    const m = await registerMerchant(api, 'prorated');
    const policyId = await policy(m, {
      refund_type: 'PARTIAL',
      refund_percentage: 50,
      prorate_refund: true,
      is_default: true,
    });
    const paid = await checkout(m, await plan(m, { amount: 100 }), 'prorated');
    const sub = (await get(m, `/subscriptions/${paid.subscriptionId}`)).body;
    const start = Date.parse(sub.current_period_start);
    const end = Date.parse(sub.current_period_end);
    await advance(m, new Date(start + (end - start) / 2));

    const previewed = await preview(m, paid.subscriptionId);
    // 100 x 50 % x (half the period unused); the few real seconds since the advance are far below a kobo.
    expect(previewed).toMatchObject({ amount: 25, status: 'PENDING', policy_id: policyId });
    const refund = await cancel(m, paid);
    expect(quoted(refund)).toEqual(quoted(previewed));
    expect(refund).toMatchObject({ amount: 25, status: 'PROCESSED', id: expect.stringMatching(UUID) });
    expect((await ledgerOf(paid.email)).refunds.map((r) => r.amount)).toEqual([2500]);
    expect((await firstInvoice(m, paid.subscriptionId)).amount_refunded).toBe(25);
  });

  it('outside the refund window the refund is 0: PROCESSED with no id, no provider call, no refund.processed', async () => {
    const m = await registerMerchant(api, 'window');
    const policyId = await policy(m, { refund_type: 'FULL', refund_window_days: 3, is_default: true });
    const planId = await plan(m, { amount: 30 });
    const inside = await checkout(m, planId, 'inside');
    const outside = await checkout(m, planId, 'outside');
    await advance(m, new Date(Date.now() + 2 * DAY_MS));
    expect((await cancel(m, inside)).amount).toBe(30);

    await advance(m, new Date(Date.now() + 5 * DAY_MS));
    const previewed = await preview(m, outside.subscriptionId);
    expect(previewed).toMatchObject({ id: null, amount: 0, status: 'PENDING', policy_id: policyId });
    const refund = await cancel(m, outside);
    const invoice = await firstInvoice(m, outside.subscriptionId);
    expect(refund).toEqual({
      id: null,
      amount: 0,
      currency: 'NGN',
      status: 'PROCESSED',
      policy_id: policyId,
      invoice_id: invoice.id,
      livemode: false,
    });
    expect(invoice.amount_refunded).toBe(0);
    expect((await ledgerOf(outside.email)).refunds).toEqual([]);
    expect((await eventsOf(outside.subscriptionId, 'subscription.cancelled'))[0].refund).toEqual(refund);
    expect(await eventsOf(outside.subscriptionId, 'refund.processed')).toEqual([]);
  });

  it('a trial period refunds nothing (only the checkout card check is given back)', async () => {
    const m = await registerMerchant(api, 'trial');
    const policyId = await policy(m, { refund_type: 'FULL', is_default: true });
    const paid = await checkout(m, await plan(m, { amount: 40, trial_period_days: 14 }), 'trial');
    const refund = await cancel(m, paid);
    expect(refund).toMatchObject({ id: null, amount: 0, status: 'PROCESSED', policy_id: policyId, invoice_id: null });
    const ledger = await ledgerOf(paid.email);
    expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([
      [ledger.transactions[0].reference, 100], // the verification charge of 1.00, refunded at checkout
    ]);
  });

  it('apply_to_existing limits the default policy only; a policy_id given on cancel applies (docs/api-behaviour.md §10, 16.5)', async () => {
    const m = await registerMerchant(api, 'existing');
    const other = await registerMerchant(api, 'existing-other');
    const planId = await plan(m, { amount: 80 });
    const before = await checkout(m, planId, 'before');
    // No policy at all: no refund.
    expect(await preview(m, before.subscriptionId)).toBeNull();

    const defaultId = await policy(m, { refund_type: 'FULL', is_default: true });
    const after = await checkout(m, planId, 'after');
    // The default applies to subscriptions created after it, not to the older one.
    expect(await preview(m, before.subscriptionId)).toBeNull();
    expect(await preview(m, after.subscriptionId)).toMatchObject({ amount: 80, policy_id: defaultId });

    const patched = await api('PATCH', `/api/v1/cancellation-policies/${defaultId}`, {
      apiKey: m.testKey,
      token: m.token,
      body: { apply_to_existing: true },
    });
    expect(patched.status).toBe(200);
    expect(await preview(m, before.subscriptionId)).toMatchObject({ amount: 80, policy_id: defaultId });

    // A named policy applies whatever its apply_to_existing.
    const tenPercent = await policy(m, { refund_type: 'PARTIAL', refund_percentage: 10 });
    const named = await preview(m, before.subscriptionId, { policy_id: tenPercent });
    expect(named).toMatchObject({ amount: 8, policy_id: tenPercent });

    // An unknown, foreign or malformed policy id refuses the cancel, and nothing changes.
    const foreign = await policy(other, { refund_type: 'FULL' });
    const refused = [
      [await post(m, `/subscriptions/${before.subscriptionId}/cancel`, { policy_id: randomUUID() }), 404],
      [await post(m, `/subscriptions/${before.subscriptionId}/cancel`, { policy_id: foreign }), 403],
      [await post(m, `/subscriptions/${before.subscriptionId}/cancel`, { policy_id: 'not-an-id' }), 422],
      [await post(m, `/subscriptions/${before.subscriptionId}/cancel/preview`, { policy_id: randomUUID() }), 404],
    ] as const;
    expect(refused.map(([res]) => res.status)).toEqual(refused.map(([, status]) => status));
    expect((await get(m, `/subscriptions/${before.subscriptionId}`)).body.status).toBe('ACTIVE');
    expect((await ledgerOf(before.email)).refunds).toEqual([]);

    const refund = await cancel(m, before, { policy_id: tenPercent });
    expect(refund).toMatchObject({ amount: 8, policy_id: tenPercent, status: 'PROCESSED' });
    expect(quoted(refund)).toEqual(quoted(named));
    // At period end nothing is refunded, and the preview says so.
    expect(await preview(m, after.subscriptionId, { at_period_end: true })).toBeNull();
    const scheduled = await post(m, `/subscriptions/${after.subscriptionId}/cancel`, { at_period_end: true });
    expect([scheduled.status, scheduled.body.refund]).toEqual([200, null]);
    expect((await ledgerOf(after.email)).refunds).toEqual([]);
  });

  it("the sandbox provider's ledger shows exactly the refunds the API reported", async () => {
    expect(reported.size).toBeGreaterThan(0);
    for (const [email, refunds] of reported) {
      const ledger = await ledgerOf(email);
      const charged = new Set(ledger.transactions.map((t) => t.reference));
      expect([email, ledger.refunds.map((r) => r.amount).sort()]).toEqual([
        email,
        refunds.map((r) => Math.round(r.amount * 100)).sort(),
      ]);
      for (const r of ledger.refunds) expect(charged.has(r.transaction_reference)).toBe(true);
    }
  });

  it('documents the preview route in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const route = doc.paths['/api/v1/subscriptions/{subscription_id}/cancel/preview'];
    expect(Object.keys(route)).toEqual(['post']);
    expect(Object.keys(doc.components.schemas.Refund.properties).sort()).toEqual(
      ['amount', 'currency', 'id', 'invoice_id', 'livemode', 'policy_id', 'status'].sort(),
    );
  });
});
