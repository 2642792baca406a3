import { randomUUID } from 'node:crypto';
import { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import {
  gatewayApi,
  ISO_UTC,
  registerMerchant,
  UUID,
  type Api,
  type Json,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';

const DAY_MS = 24 * 60 * 60 * 1000;
const LIST_VIEW_FIELDS = [
  'amount',
  'cancel_at_period_end',
  'cancelled_at',
  'cancelled_by',
  'created_at',
  'currency',
  'current_period_end',
  'current_period_start',
  'customer_email',
  'id',
  'interval',
  'plan_name',
  'status',
];
const DETAIL_FIELDS = [
  ...LIST_VIEW_FIELDS,
  'billing_cycles',
  'customer_id',
  'discount',
  'livemode',
  'metadata',
  'pending_plan_change_at',
  'pending_plan_id',
  'plan_id',
  'tax_rate_ids',
  'trial_end',
].sort();

/** One month later, as billing counts it (the day clamps to the month's last day). */
function addMonth(iso: string): string {
  const d = new Date(iso);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  target.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return target.toISOString();
}

describe('subscriptions API (gateway -> catalog + billing -> sandbox provider)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: RegisteredMerchant;
  let other: RegisteredMerchant;
  let sandbox: SandboxControlsClient;
  let planId: string;
  let secondPlanId: string;

  const billingDb = () => platform.database('billing');
  const post = (path: string, body: unknown = {}, apiKey = acme.testKey) =>
    api('POST', `/api/v1${path}`, { apiKey, body });
  const get = (path: string, apiKey = acme.testKey) => api('GET', `/api/v1${path}`, { apiKey });

  /** A customer with a saved card: pays a hosted checkout of `plan` exactly as a payer does. */
  async function customerWithCard(
    label: string,
    plan = planId,
    apiKey = acme.testKey,
  ): Promise<{ id: string; email: string }> {
    const paid = await payHostedCheckout(api, platform.gatewayUrl, apiKey, plan, label);
    return { id: paid.customerId, email: paid.email };
  }

  async function authorizationCode(customerId: string): Promise<string> {
    const rows = await queryDatabase<{ authorization_code: string }>(
      billingDb(),
      'SELECT authorization_code FROM payment_authorizations WHERE customer_id = $1',
      [customerId],
    );
    expect(rows).toHaveLength(1);
    return rows[0].authorization_code;
  }

  async function eventsOf(subscriptionId: string): Promise<Array<{ event_type: string; data: Json }>> {
    const rows = await queryDatabase<{ event_type: string; payload: Json }>(
      billingDb(),
      `SELECT event_type, payload FROM outbox_events
        WHERE payload->'data'->>'id' = $1 OR payload->'data'->>'subscription_id' = $1 ORDER BY created_at, event_type`,
      [subscriptionId],
    );
    return rows.map((r) => ({ event_type: r.event_type, data: r.payload.data }));
  }

  const subscribe = (body: Record<string, unknown>, apiKey = acme.testKey) => post('/subscriptions', body, apiKey);

  beforeAll(async () => {
    // Settlement takes over a first charge left PENDING for 3 s (the real default is 30 s).
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([registerMerchant(api, 'subs'), registerMerchant(api, 'subs-other')]);
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    planId = (await post('/plans', { name: 'Gold', amount: 5000.5 })).body.id;
    secondPlanId = (await post('/plans', { name: 'Silver', amount: 1200, trial_period_days: 7 })).body.id;
  });
  afterAll(() => platform?.stop());

  it('creates an ACTIVE subscription, charging the first period now: PAID invoice, events, one charge', async () => {
    const customer = await customerWithCard('ada');
    const before = Date.now();
    const res = await subscribe({ customer_id: customer.id, plan_id: planId, metadata: { seat: 3 } });
    const after = Date.now();
    expect(res.status).toBe(201);
    const sub = res.body;
    expect(Object.keys(sub).sort()).toEqual(DETAIL_FIELDS);
    expect(sub).toMatchObject({
      id: expect.stringMatching(UUID),
      customer_email: customer.email,
      customer_id: customer.id,
      plan_id: planId,
      plan_name: 'Gold',
      status: 'ACTIVE',
      amount: 5000.5,
      currency: 'NGN',
      interval: 'monthly',
      cancelled_at: null,
      cancel_at_period_end: false,
      cancelled_by: null,
      trial_end: null,
      billing_cycles: null,
      metadata: { seat: 3 },
      livemode: false,
    });
    expect(sub.created_at).toMatch(ISO_UTC);
    const start = Date.parse(sub.current_period_start);
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(start).toBeLessThanOrEqual(after + 1000);
    expect(sub.current_period_end).toBe(addMonth(sub.current_period_start));

    const detail = (await get(`/customers/${customer.id}`)).body;
    expect(detail.subscriptions.map((s: Json) => s.id)).toContain(sub.id);
    const paid = detail.invoices.filter((i: Json) => i.status === 'PAID');
    expect(paid).toHaveLength(2); // the checkout's and this one
    const invoices = await queryDatabase<{ id: string; status: string; amount: string; period_start: Date }>(
      billingDb(),
      'SELECT id, status, amount, period_start FROM invoices WHERE subscription_id = $1',
      [sub.id],
    );
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ status: 'PAID', amount: '500050' });
    expect(invoices[0].period_start.toISOString()).toBe(sub.current_period_start);

    const events = await eventsOf(sub.id);
    expect(events.map((e) => e.event_type).sort()).toEqual(['invoice.created', 'invoice.paid', 'subscription.created']);
    expect(events.find((e) => e.event_type === 'subscription.created')!.data).toMatchObject({
      id: sub.id,
      status: 'ACTIVE',
      amount: 5000.5,
      customer_id: customer.id,
      plan_id: planId,
    });

    const ledger = await sandbox.ledger({ email: customer.email });
    const charges = ledger.transactions.filter((t) => t.status === 'success');
    expect(charges.map((t) => t.amount)).toEqual([500050, 500050]); // checkout + first period
    expect(ledger.refunds).toEqual([]);
    const payments = await queryDatabase<{ status: string; invoice_id: string }>(
      billingDb(),
      'SELECT status, invoice_id FROM payments WHERE invoice_id = $1',
      [invoices[0].id],
    );
    expect(payments).toEqual([{ status: 'SUCCEEDED', invoice_id: invoices[0].id }]);
  });

  it('starts TRIALING with trial_period_days overriding the plan, stores billing_cycles, charges nothing', async () => {
    const customer = await customerWithCard('trial');
    const res = await subscribe({
      customer_id: customer.id,
      plan_id: planId,
      trial_period_days: 14,
      billing_cycles: 3,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'TRIALING', billing_cycles: 3, metadata: {} });
    const start = Date.parse(res.body.current_period_start);
    expect(res.body.trial_end).toBe(new Date(start + 14 * DAY_MS).toISOString());
    expect(res.body.current_period_end).toBe(res.body.trial_end);
    const invoices = await queryDatabase(billingDb(), 'SELECT id FROM invoices WHERE subscription_id = $1', [
      res.body.id,
    ]);
    expect(invoices).toEqual([]);
    expect((await sandbox.ledger({ email: customer.email })).transactions).toHaveLength(1); // the checkout only

    // The plan's own trial applies when none is given; 0 turns it off.
    const planTrial = await subscribe({ customer_id: customer.id, plan_id: secondPlanId });
    expect(planTrial.body.status).toBe('TRIALING');
    expect(Date.parse(planTrial.body.trial_end) - Date.parse(planTrial.body.current_period_start)).toBe(7 * DAY_MS);
    const noTrial = await subscribe({ customer_id: customer.id, plan_id: secondPlanId, trial_period_days: 0 });
    expect(noTrial.body).toMatchObject({ status: 'ACTIVE', trial_end: null, amount: 1200 });

    const detail = (await get(`/subscriptions/${res.body.id}`)).body;
    expect(detail).toEqual(res.body);
  });

  it('refuses bad input: 422 for trial days, billing cycles, metadata keys', async () => {
    const customer = await customerWithCard('bad');
    for (const body of [
      { trial_period_days: 731 },
      { trial_period_days: -1 },
      { billing_cycles: 0 },
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
    ]) {
      const res = await subscribe({ customer_id: customer.id, plan_id: planId, ...body });
      expect(res.status).toBe(422);
    }
    expect((await subscribe({ customer_id: 'nope', plan_id: planId })).status).toBe(422);
    expect((await subscribe({ customer_id: randomUUID(), plan_id: planId })).status).toBe(404);
    expect((await subscribe({ customer_id: customer.id, plan_id: randomUUID() })).status).toBe(404);
  });

  it('402 with the provider words and nothing created when the first charge is declined', async () => {
    const customer = await customerWithCard('declined');
    const code = await authorizationCode(customer.id);
    await sandbox.setAuthorizationBehavior(code, 'decline');
    const count = async (sql: string) => (await queryDatabase<{ n: number }>(billingDb(), sql, [customer.id]))[0].n;
    const subsBefore = await count('SELECT count(*)::int AS n FROM subscriptions WHERE customer_id = $1');
    const eventsBefore = await count(
      `SELECT count(*)::int AS n FROM outbox_events WHERE payload->'data'->>'customer_id' = $1`,
    );

    const res = await subscribe({ customer_id: customer.id, plan_id: planId });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ detail: 'Declined' });
    expect(await count('SELECT count(*)::int AS n FROM subscriptions WHERE customer_id = $1')).toBe(subsBefore);
    expect(await count('SELECT count(*)::int AS n FROM invoices WHERE customer_id = $1')).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM outbox_events WHERE payload->'data'->>'customer_id' = $1`)).toBe(
      eventsBefore,
    );
    // The attempt is in the ledger, settled as failed.
    const failed = await queryDatabase<{ status: string; invoice_id: string | null }>(
      billingDb(),
      `SELECT status, invoice_id FROM payments WHERE customer_id = $1 AND status <> 'SUCCEEDED'`,
      [customer.id],
    );
    expect(failed).toEqual([{ status: 'FAILED', invoice_id: null }]);

    await sandbox.setAuthorizationBehavior(code, 'insufficient_funds');
    const poor = await subscribe({ customer_id: customer.id, plan_id: planId });
    expect(poor.status).toBe(402);
    expect(poor.body.detail).toMatch(/insufficient/i);

    await sandbox.setAuthorizationBehavior(code, 'succeed');
    expect((await subscribe({ customer_id: customer.id, plan_id: planId })).status).toBe(201);
  });

  it('400 for a customer without a saved card and for an inactive plan', async () => {
    const bare = await post('/customers', { email: `bare-${randomUUID().slice(0, 8)}@example.com` });
    expect(bare.status).toBe(201);
    const noCard = await subscribe({ customer_id: bare.body.id, plan_id: planId });
    expect(noCard.status).toBe(400);
    expect(noCard.body.detail).toMatch(/saved card/);

    const customer = await customerWithCard('inactive');
    const retired = (await post('/plans', { name: 'Retired', amount: 10 })).body.id;
    expect((await api('DELETE', `/api/v1/plans/${retired}`, { apiKey: acme.testKey })).status).toBe(204);
    const res = await subscribe({ customer_id: customer.id, plan_id: retired });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/not active/);
    const rows = await queryDatabase(billingDb(), 'SELECT id FROM subscriptions WHERE plan_id = $1', [retired]);
    expect(rows).toEqual([]);
  });

  it('lists newest first with status / status_filter / customer_id / plan_id filters and paging', async () => {
    const customer = await customerWithCard('lister', secondPlanId); // checkout: TRIALING on Silver
    const a = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    const b = (await subscribe({ customer_id: customer.id, plan_id: planId, trial_period_days: 3 })).body;
    const c = (await subscribe({ customer_id: customer.id, plan_id: secondPlanId, trial_period_days: 0 })).body;

    const mine = await get(`/subscriptions?customer_id=${customer.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body).toHaveLength(4);
    expect(mine.body.slice(0, 3).map((s: Json) => s.id)).toEqual([c.id, b.id, a.id]);
    for (const item of mine.body) expect(Object.keys(item).sort()).toEqual(LIST_VIEW_FIELDS);
    expect(mine.body[0]).toEqual(Object.fromEntries(Object.entries(c).filter(([k]) => LIST_VIEW_FIELDS.includes(k))));

    const trialing = await get(`/subscriptions?customer_id=${customer.id}&status=TRIALING`);
    expect(trialing.body.map((s: Json) => s.status)).toEqual(['TRIALING', 'TRIALING']);
    expect(trialing.body[0].id).toBe(b.id);
    const legacy = await get(`/subscriptions?customer_id=${customer.id}&status_filter=TRIALING`);
    expect(legacy.body).toEqual(trialing.body);
    const silver = await get(`/subscriptions?customer_id=${customer.id}&plan_id=${secondPlanId}`);
    expect(silver.body.map((s: Json) => s.plan_name)).toEqual(['Silver', 'Silver']);
    expect((await get(`/subscriptions?status=NOPE`)).status).toBe(422);
    expect((await get(`/subscriptions?customer_id=${randomUUID()}`)).body).toEqual([]);

    const page1 = await get(`/subscriptions?customer_id=${customer.id}&limit=2`);
    const page2 = await get(`/subscriptions?customer_id=${customer.id}&limit=2&starting_after=${page1.body[1].id}`);
    const page3 = await get(`/subscriptions?customer_id=${customer.id}&limit=2&starting_after=${page2.body[1].id}`);
    expect([...page1.body, ...page2.body].map((s: Json) => s.id)).toEqual(mine.body.map((s: Json) => s.id));
    expect(page3.body).toEqual([]);
    expect((await get(`/subscriptions?starting_after=${randomUUID()}`)).status).toBe(400);

    // Another project sees none of them; the live mode of this project neither.
    expect((await get(`/subscriptions?customer_id=${customer.id}`, other.testKey)).body).toEqual([]);
    expect((await get('/subscriptions', acme.liveKey)).body).toEqual([]);
  });

  it('gets one subscription: 404 unknown or malformed or other mode, 403 another project', async () => {
    const customer = await customerWithCard('getter');
    const sub = (await subscribe({ customer_id: customer.id, plan_id: planId, billing_cycles: 12 })).body;
    const res = await get(`/subscriptions/${sub.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sub);
    expect((await get(`/subscriptions/${randomUUID()}`)).status).toBe(404);
    expect((await get('/subscriptions/not-an-id')).status).toBe(404);
    expect((await get(`/subscriptions/${sub.id}`, acme.liveKey)).status).toBe(404);
    const foreign = await get(`/subscriptions/${sub.id}`, other.testKey);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ detail: expect.any(String) });
    for (const action of ['pause', 'resume', 'cancel']) {
      expect((await post(`/subscriptions/${sub.id}/${action}`, {}, other.testKey)).status).toBe(403);
    }
    expect((await get(`/subscriptions/${sub.id}`)).body.status).toBe('ACTIVE');
  });

  it('pauses (again -> 400), resumes with a new period charged at resume time', async () => {
    const customer = await customerWithCard('pauser');
    const sub = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    const paused = await post(`/subscriptions/${sub.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: sub.id, status: 'PAUSED', current_period_start: sub.current_period_start });
    const pausedAt = async () =>
      (
        await queryDatabase<{ paused_at: Date | null }>(
          billingDb(),
          'SELECT paused_at FROM subscriptions WHERE id = $1',
          [sub.id],
        )
      )[0].paused_at;
    expect(await pausedAt()).toBeInstanceOf(Date);
    const again = await post(`/subscriptions/${sub.id}/pause`);
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/paused/);

    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = Date.now();
    const resumed = await post(`/subscriptions/${sub.id}/resume`);
    const after = Date.now();
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('ACTIVE');
    const start = Date.parse(resumed.body.current_period_start);
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(start).toBeLessThanOrEqual(after + 1000);
    expect(start).toBeGreaterThan(Date.parse(sub.current_period_start));
    expect(resumed.body.current_period_end).toBe(addMonth(resumed.body.current_period_start));
    expect((await post(`/subscriptions/${sub.id}/resume`)).status).toBe(400);
    expect(await pausedAt()).toBeNull();

    const invoices = await queryDatabase<{ status: string; period_start: Date }>(
      billingDb(),
      'SELECT status, period_start FROM invoices WHERE subscription_id = $1 ORDER BY period_start',
      [sub.id],
    );
    expect(invoices.map((i) => i.status)).toEqual(['PAID', 'PAID']);
    expect(invoices[1].period_start.toISOString()).toBe(resumed.body.current_period_start);
    const charges = (await sandbox.ledger({ email: customer.email })).transactions.filter(
      (t) => t.status === 'success',
    );
    expect(charges).toHaveLength(3); // checkout, first period, resumed period

    const types = (await eventsOf(sub.id)).map((e) => e.event_type);
    expect(types.filter((t) => t.startsWith('subscription.'))).toEqual([
      'subscription.created',
      'subscription.paused',
      'subscription.resumed',
    ]);
    expect(types.filter((t) => t === 'invoice.paid')).toHaveLength(2);
  });

  it('a resume interrupted after opening its invoice is finished by the next resume, never billed twice', async () => {
    const customer = await customerWithCard('interrupted');
    const open = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    const settled = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    /** What a resume that died after its first transaction leaves: the new period and its invoice. */
    async function interruptedResume(subscriptionId: string, status: 'OPEN' | 'PAID'): Promise<string> {
      expect((await post(`/subscriptions/${subscriptionId}/pause`)).status).toBe(200);
      const start = new Date();
      const end = addMonth(start.toISOString());
      await queryDatabase(
        billingDb(),
        'UPDATE subscriptions SET billing_anchor = $2, current_period_start = $2, current_period_end = $3 WHERE id = $1',
        [subscriptionId, start, end],
      );
      await queryDatabase(
        billingDb(),
        `INSERT INTO invoices (id, project_id, livemode, number, subscription_id, customer_id, status, currency,
                               subtotal, amount, total_excluding_tax, amount_due, amount_paid, period_start,
                               period_end, due_date, paid_at, attempt_count, created_at, updated_at)
         VALUES ($1, $2, false, $3, $4, $5, $6, 'NGN', 500050, 500050, 500050, 500050, $7, $8, $9, $8, $10, $11,
                 now(), now())`,
        [
          randomUUID(),
          acme.projectId,
          `INV-T-${randomUUID().slice(0, 8)}`,
          subscriptionId,
          customer.id,
          status,
          status === 'PAID' ? 500050 : 0,
          start,
          end,
          status === 'PAID' ? start : null,
          status === 'PAID' ? 1 : 0,
        ],
      );
      return start.toISOString();
    }
    const openStart = await interruptedResume(open.id, 'OPEN');
    const settledStart = await interruptedResume(settled.id, 'PAID');

    for (const [id, start] of [
      [open.id, openStart],
      [settled.id, settledStart],
    ]) {
      const resumed = await post(`/subscriptions/${id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ status: 'ACTIVE', current_period_start: start });
      const invoices = await queryDatabase<{ status: string }>(
        billingDb(),
        'SELECT status FROM invoices WHERE subscription_id = $1 ORDER BY period_start',
        [id],
      );
      expect(invoices.map((i) => i.status)).toEqual(['PAID', 'PAID']);
      expect((await eventsOf(id)).map((e) => e.event_type)).toContain('subscription.resumed');
    }
    // checkout + two first periods + the OPEN invoice's charge; the PAID one is not charged again.
    const charges = (await sandbox.ledger({ email: customer.email })).transactions.filter(
      (t) => t.status === 'success',
    );
    expect(charges).toHaveLength(4);
  });

  it('a resume whose charge fails answers 200 PAST_DUE with subscription.past_due', async () => {
    const customer = await customerWithCard('resume-fail');
    const sub = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    expect((await post(`/subscriptions/${sub.id}/pause`)).status).toBe(200);
    await sandbox.setAuthorizationBehavior(await authorizationCode(customer.id), 'decline');
    const resumed = await post(`/subscriptions/${sub.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('PAST_DUE');
    const invoices = await queryDatabase<{ status: string }>(
      billingDb(),
      'SELECT status FROM invoices WHERE subscription_id = $1 ORDER BY period_start',
      [sub.id],
    );
    expect(invoices.map((i) => i.status)).toEqual(['PAID', 'OPEN']);
    const types = (await eventsOf(sub.id)).map((e) => e.event_type);
    expect(types).toContain('subscription.past_due');
    expect(types).not.toContain('subscription.resumed');
  });

  it('cancels now (MERCHANT, refund null) or at period end; a cancelled one cannot be cancelled again', async () => {
    const customer = await customerWithCard('canceller');
    const now = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    const before = Date.now();
    const cancelled = await post(`/subscriptions/${now.id}/cancel`, { reason: 'too expensive' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      id: now.id,
      status: 'CANCELLED',
      cancelled_by: 'MERCHANT',
      cancel_at_period_end: false,
      refund: null,
    });
    expect(Date.parse(cancelled.body.cancelled_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Object.keys(cancelled.body).sort()).toEqual([...DETAIL_FIELDS, 'refund'].sort());
    const stored = await queryDatabase<{ cancellation_reason: string }>(
      billingDb(),
      'SELECT cancellation_reason FROM subscriptions WHERE id = $1',
      [now.id],
    );
    expect(stored).toEqual([{ cancellation_reason: 'too expensive' }]);
    const again = await post(`/subscriptions/${now.id}/cancel`);
    expect(again.status).toBe(400);
    expect((await post(`/subscriptions/${now.id}/cancel`, { at_period_end: true })).status).toBe(400);
    expect((await post(`/subscriptions/${now.id}/pause`)).status).toBe(400);
    expect((await post(`/subscriptions/${now.id}/resume`)).status).toBe(400);
    const event = (await eventsOf(now.id)).find((e) => e.event_type === 'subscription.cancelled');
    expect(event?.data).toMatchObject({
      id: now.id,
      status: 'CANCELLED',
      cancelled_by: 'MERCHANT',
      customer_id: customer.id,
      plan_id: planId,
      refund: null,
    });

    const later = (await subscribe({ customer_id: customer.id, plan_id: planId })).body;
    const scheduled = await post(`/subscriptions/${later.id}/cancel`, { at_period_end: true });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({
      status: 'ACTIVE',
      cancel_at_period_end: true,
      cancelled_at: null,
      cancelled_by: null,
      refund: null,
    });
    expect((await get(`/subscriptions/${later.id}`)).body.cancel_at_period_end).toBe(true);
    // A paused subscription can be cancelled now too.
    expect((await post(`/subscriptions/${later.id}/pause`)).status).toBe(200);
    expect((await post(`/subscriptions/${later.id}/cancel`)).body.status).toBe('CANCELLED');
    expect((await post(`/subscriptions/${later.id}/cancel`, { at_period_end: 'yes' })).status).toBe(422);
  });

  it("runs on the project's test clock: periods, pause, resume and cancel at the project's now", async () => {
    const offsetMs = 40 * DAY_MS;
    await queryDatabase(
      billingDb(),
      'INSERT INTO test_clocks (project_id, offset_ms, updated_at) VALUES ($1, $2, now())',
      [other.projectId, offsetMs],
    );
    const otherPlan = (await post('/plans', { name: 'Clocked', amount: 300 }, other.testKey)).body.id;
    const customer = await customerWithCard('clocked', otherPlan, other.testKey);
    const near = (iso: string) => expect(Math.abs(Date.parse(iso) - (Date.now() + offsetMs))).toBeLessThan(60_000);

    const sub = await subscribe({ customer_id: customer.id, plan_id: otherPlan }, other.testKey);
    expect(sub.status).toBe(201);
    near(sub.body.current_period_start);
    near(sub.body.created_at);
    expect((await post(`/subscriptions/${sub.body.id}/pause`, {}, other.testKey)).status).toBe(200);
    const resumed = await post(`/subscriptions/${sub.body.id}/resume`, {}, other.testKey);
    expect(resumed.body.status).toBe('ACTIVE');
    near(resumed.body.current_period_start);
    const cancelled = await post(`/subscriptions/${sub.body.id}/cancel`, {}, other.testKey);
    near(cancelled.body.cancelled_at);
  });

  it('settlement refunds a first charge whose request died before anything was created', async () => {
    const customer = await customerWithCard('orphan');
    const code = await authorizationCode(customer.id);
    const charged = `sub-first-${randomUUID()}`;
    const neverCharged = `sub-first-${randomUUID()}`;
    // The provider charged, then the request's process died: only the ledger row exists.
    const charge = await fetch(`${platform.env.SANDBOX_PROVIDER_URL}/transaction/charge_authorization`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.env.SANDBOX_SECRET_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        authorization_code: code,
        email: customer.email,
        amount: 500050,
        currency: 'NGN',
        reference: charged,
      }),
    });
    expect(charge.status).toBe(200);
    for (const reference of [charged, neverCharged]) {
      await queryDatabase(
        billingDb(),
        `INSERT INTO payments (id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
                               status, provider_response, created_at, updated_at, charge_started_at)
         VALUES ($1, $2, false, $3, 'INVOICE', $4, NULL, 500050, 'NGN', 'PENDING', '{}', now(), now(),
                 now() - interval '1 hour')`,
        [randomUUID(), acme.projectId, reference, customer.id],
      );
    }
    const settled = async () => {
      const rows = await queryDatabase<{ reference: string; status: string }>(
        billingDb(),
        'SELECT reference, status FROM payments WHERE reference = ANY($1) ORDER BY reference',
        [[charged, neverCharged]],
      );
      const refunds = await queryDatabase<{ status: string; amount: string; reason: string }>(
        billingDb(),
        'SELECT r.status, r.amount, r.reason FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.reference = $1',
        [charged],
      );
      return { payments: Object.fromEntries(rows.map((r) => [r.reference, r.status])), refunds };
    };
    const deadline = Date.now() + 20_000;
    let state = await settled();
    while (
      Date.now() < deadline &&
      (state.refunds[0]?.status !== 'PROCESSED' || state.payments[neverCharged] === 'PENDING')
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      state = await settled();
    }
    expect(state.payments).toEqual({ [charged]: 'SUCCEEDED', [neverCharged]: 'FAILED' });
    expect(state.refunds).toEqual([{ status: 'PROCESSED', amount: '500050', reason: 'ABANDONED_CHARGE' }]);
    const refunds = (await sandbox.ledger()).refunds.filter((r) => r.transaction_reference === charged);
    expect(refunds.map((r) => r.amount)).toEqual([500050]);
    const subs = await queryDatabase(billingDb(), 'SELECT id FROM subscriptions WHERE customer_id = $1', [customer.id]);
    expect(subs).toHaveLength(1); // the checkout's only
  });

  it('documents the subscription routes in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/subscriptions']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/subscriptions/{subscription_id}'])).toEqual(['get', 'patch']);
    for (const action of ['pause', 'resume', 'cancel']) {
      expect(Object.keys(doc.paths[`/api/v1/subscriptions/{subscription_id}/${action}`])).toEqual(['post']);
    }
    expect(Object.keys(doc.components.schemas.SubscriptionListItem.properties).sort()).toEqual(LIST_VIEW_FIELDS);
    expect(Object.keys(doc.components.schemas.Subscription.properties).sort()).toEqual(DETAIL_FIELDS);
    const post201 = doc.paths['/api/v1/subscriptions'].post.responses;
    expect(Object.keys(post201)).toEqual(expect.arrayContaining(['201', '400', '402']));
    const query = doc.paths['/api/v1/subscriptions'].get.parameters.map((p: Json) => p.name);
    expect(query).toEqual(
      expect.arrayContaining(['status', 'status_filter', 'customer_id', 'plan_id', 'limit', 'starting_after']),
    );
  });
});
