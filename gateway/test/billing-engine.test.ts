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
import { payHostedCheckout } from './support/hosted-checkout';
import { addMonths, plus, sandboxControlsOf } from './support/test-clock';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * The billing engine through the gateway, on test clocks: renewals, trials, fixed terms,
 * dunning, cancel at period end, invoice pay/void. Every process is real; money is checked in
 * the sandbox provider's own ledger.
 */
describe('billing engine on test clocks (gateway -> billing -> sandbox provider)', () => {
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
    expect(res.body.now).toBe(new Date(to).toISOString());
  }

  async function plan(m: RegisteredMerchant, body: Json): Promise<string> {
    const res = await post(m, '/plans', { amount: 100, ...body });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** Pays a hosted checkout exactly as a payer does; returns the customer and its subscription. */
  const checkout = (m: RegisteredMerchant, label: string, planId: string) =>
    payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, label);

  const subscription = async (m: RegisteredMerchant, id: string) => (await get(m, `/subscriptions/${id}`)).body;
  const invoicesOf = async (m: RegisteredMerchant, subscriptionId: string): Promise<Json[]> => {
    const res = await get(m, `/invoices?subscription_id=${subscriptionId}&limit=100`);
    expect(res.status).toBe(200);
    return [...res.body].sort((a: Json, b: Json) => Date.parse(a.period_start) - Date.parse(b.period_start));
  };
  const chargesOf = async (email: string) =>
    (await sandbox.ledger({ email })).transactions.filter((t) => t.channel === 'authorization');
  const eventsOf = async (subscriptionId: string, type: string) =>
    queryDatabase<{ payload: Json }>(
      platform.database('billing'),
      `SELECT payload FROM outbox_events WHERE event_type = $1 AND payload->'data'->>'id' = $2`,
      [type, subscriptionId],
    );

  it('a monthly subscription started on Jan 31 renews twelve times: Feb 28, Mar 31, Apr 30 ... one PAID invoice each', async () => {
    const m = await registerMerchant(api, 'year');
    await advance(m, '2027-01-31T10:00:00.000Z');
    const planId = await plan(m, { name: 'Monthly', amount: 50 });
    const { subscriptionId, email } = await checkout(m, 'year', planId);
    const anchor = (await subscription(m, subscriptionId)).current_period_start;
    expect(anchor.startsWith('2027-01-31T10:0')).toBe(true);

    // Six months one advance at a time, then six more in one jump (catch-up in order).
    for (let k = 1; k <= 6; k += 1) {
      await advance(m, plus(addMonths(anchor, k), 60_000));
      const s = await subscription(m, subscriptionId);
      expect([s.status, s.current_period_start, s.current_period_end]).toEqual([
        'ACTIVE',
        addMonths(anchor, k),
        addMonths(anchor, k + 1),
      ]);
    }
    await advance(m, plus(addMonths(anchor, 12), 60_000));

    const invoices = await invoicesOf(m, subscriptionId);
    expect(invoices.map((i) => i.period_start)).toEqual(Array.from({ length: 13 }, (_, k) => addMonths(anchor, k)));
    expect(invoices.map((i) => i.period_start.slice(5, 10))).toEqual([
      '01-31',
      '02-28',
      '03-31',
      '04-30',
      '05-31',
      '06-30',
      '07-31',
      '08-31',
      '09-30',
      '10-31',
      '11-30',
      '12-31',
      '01-31',
    ]);
    expect(invoices.every((i) => i.status === 'PAID' && i.amount === 50 && i.amount_paid === 50)).toBe(true);
    const renewal = invoices[12];
    expect(renewal.lines).toEqual([
      {
        type: 'SUBSCRIPTION',
        description: 'Monthly',
        quantity: '1',
        unit_amount: 50,
        amount: 50,
        period_start: addMonths(anchor, 12),
        period_end: addMonths(anchor, 13),
        tax_rates: [],
      },
    ]);
    expect(new Set(invoices.map((i) => i.number)).size).toBe(13);
    const s = await subscription(m, subscriptionId);
    expect([s.status, s.current_period_start]).toEqual(['ACTIVE', addMonths(anchor, 12)]);
    // The provider charged the saved card exactly twelve times, once per renewal reference.
    const charges = await chargesOf(email);
    expect(charges).toHaveLength(12);
    expect(charges.every((c) => c.status === 'success' && c.amount === 5000)).toBe(true);
    expect(new Set(charges.map((c) => c.reference)).size).toBe(12);
    expect(await eventsOf(subscriptionId, 'subscription.renewed')).toHaveLength(12);
  });

  it('a paused subscription is not invoiced across its period end; resume starts and charges a period at test-clock time', async () => {
    const m = await registerMerchant(api, 'pause');
    await advance(m, '2027-03-01T09:00:00.000Z');
    const planId = await plan(m, { name: 'Paused monthly', amount: 30 });
    const { subscriptionId, email } = await checkout(m, 'pause', planId);
    const started = await subscription(m, subscriptionId);
    expect(started.current_period_end).toBe(addMonths(started.current_period_start, 1));

    await advance(m, '2027-03-10T09:00:00.000Z');
    const paused = await post(m, `/subscriptions/${subscriptionId}/pause`);
    expect([paused.status, paused.body.status]).toEqual([200, 'PAUSED']);

    // Two period ends go by while paused: no invoice, no charge, still PAUSED.
    await advance(m, '2027-05-15T09:00:00.000Z');
    expect((await subscription(m, subscriptionId)).status).toBe('PAUSED');
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(1);
    expect(await chargesOf(email)).toHaveLength(0);

    const resumed = await post(m, `/subscriptions/${subscriptionId}/resume`);
    expect([resumed.status, resumed.body.status]).toEqual([200, 'ACTIVE']);
    // A test clock runs on from where it was advanced to, so resume time is a moment after it.
    const resumedAt = resumed.body.current_period_start;
    expect(Date.parse(resumedAt) - Date.parse('2027-05-15T09:00:00.000Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(resumedAt) - Date.parse('2027-05-15T09:00:00.000Z')).toBeLessThan(10_000);
    expect(resumed.body.current_period_end).toBe(addMonths(resumedAt, 1));
    const invoices = await invoicesOf(m, subscriptionId);
    expect(invoices.map((i) => [i.status, i.period_start])).toEqual([
      ['PAID', started.current_period_start],
      ['PAID', resumedAt],
    ]);
    const charges = await chargesOf(email);
    expect(charges.map((c) => [c.status, c.amount])).toEqual([['success', 3000]]);

    // The resumed period renews on the clock like any other.
    await advance(m, plus(addMonths(resumedAt, 1), 60_000));
    const renewed = await subscription(m, subscriptionId);
    expect([renewed.status, renewed.current_period_start]).toEqual(['ACTIVE', addMonths(resumedAt, 1)]);
    expect(await chargesOf(email)).toHaveLength(2);
  });

  describe('one project through trial ends, fixed terms, dunning, pay, void, cancel at period end', () => {
    const T0 = '2027-03-01T09:00:00.000Z';
    let m: RegisteredMerchant;
    let trial: { subscriptionId: string; email: string };
    let fixed: { subscriptionId: string; email: string };
    let cancelling: { subscriptionId: string; email: string };
    let exhausted: { subscriptionId: string; email: string; customerId: string };
    let recovers: { subscriptionId: string; email: string; customerId: string };
    let paid: { subscriptionId: string; email: string; customerId: string };
    let voided: { subscriptionId: string; email: string; customerId: string };

    const setCard = async (customerId: string, behavior: string) => {
      const res = await post(m, `/test-helpers/customers/${customerId}/card`, { behavior });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ customer_id: customerId, behavior });
    };
    const status = async (id: string) => (await subscription(m, id)).status;

    beforeAll(async () => {
      m = await registerMerchant(api, 'engine');
      await advance(m, T0);
      const weekly = await plan(m, { name: 'Weekly', interval: 'weekly' });
      const trialPlan = await plan(m, { name: 'Trial', interval: 'weekly', trial_period_days: 7 });
      trial = await checkout(m, 'trial', trialPlan);
      const owner = await checkout(m, 'fixed', weekly);
      const created = await post(m, '/subscriptions', {
        customer_id: owner.customerId,
        plan_id: weekly,
        billing_cycles: 3,
      });
      expect(created.status).toBe(201);
      // The checkout's own subscription is not part of this story.
      expect((await post(m, `/subscriptions/${owner.subscriptionId}/cancel`, {})).status).toBe(200);
      fixed = { subscriptionId: created.body.id, email: owner.email };
      cancelling = await checkout(m, 'period-end', weekly);
      expect(
        (await post(m, `/subscriptions/${cancelling.subscriptionId}/cancel`, { at_period_end: true })).status,
      ).toBe(200);
      exhausted = await checkout(m, 'exhausted', weekly);
      recovers = await checkout(m, 'recovers', weekly);
      paid = await checkout(m, 'pays', weekly);
      voided = await checkout(m, 'voided', weekly);
      for (const c of [exhausted, recovers, paid, voided]) await setCard(c.customerId, 'decline');
    });

    it('sends subscription.trial_will_end 3 days before the trial ends, once, and nothing else', async () => {
      await advance(m, plus(T0, 4 * DAY_MS + HOUR_MS));
      expect(await eventsOf(trial.subscriptionId, 'subscription.trial_will_end')).toHaveLength(1);
      expect(await status(trial.subscriptionId)).toBe('TRIALING');
      expect(await invoicesOf(m, trial.subscriptionId)).toHaveLength(0);
      await advance(m, plus(T0, 4 * DAY_MS + 2 * HOUR_MS));
      expect(await eventsOf(trial.subscriptionId, 'subscription.trial_will_end')).toHaveLength(1);
    });

    it('at the first period end: trial -> ACTIVE charged from the trial end; cancel_at_period_end -> CANCELLED; declines -> PAST_DUE', async () => {
      await advance(m, plus(T0, 7 * DAY_MS + HOUR_MS));
      const t = await subscription(m, trial.subscriptionId);
      expect(t.status).toBe('ACTIVE');
      const [first] = await invoicesOf(m, trial.subscriptionId);
      expect([first.status, first.period_start, first.amount_paid]).toEqual(['PAID', t.trial_end, 100]);
      expect(t.current_period_start).toBe(t.trial_end);

      const c = await subscription(m, cancelling.subscriptionId);
      expect([c.status, c.cancelled_at]).toEqual(['CANCELLED', c.current_period_end]);
      expect(await invoicesOf(m, cancelling.subscriptionId)).toHaveLength(1);
      expect(await chargesOf(cancelling.email)).toHaveLength(0);

      for (const d of [exhausted, recovers, paid, voided]) {
        const s = await subscription(m, d.subscriptionId);
        expect(s.status).toBe('PAST_DUE');
        const open = (await invoicesOf(m, d.subscriptionId))[1];
        expect([open.status, open.attempt_count, open.next_payment_attempt]).toEqual([
          'OPEN',
          1,
          plus(s.current_period_start, DAY_MS),
        ]);
        expect(await eventsOf(d.subscriptionId, 'subscription.past_due')).toHaveLength(1);
      }
      expect((await invoicesOf(m, fixed.subscriptionId)).map((i) => i.status)).toEqual(['PAID', 'PAID']);
    });

    it('POST /invoices/{id}/pay: a declined card is a 402 (still OPEN, attempt + 1); success makes PAST_DUE ACTIVE; then 400', async () => {
      const open = (await invoicesOf(m, paid.subscriptionId))[1];
      const declined = await post(m, `/invoices/${open.id}/pay`);
      expect(declined.status).toBe(402);
      expect(declined.body.detail).toBe('Declined');
      const after = (await get(m, `/invoices/${open.id}`)).body;
      expect([after.status, after.attempt_count]).toEqual(['OPEN', 2]);
      await setCard(paid.customerId, 'succeed');
      const ok = await post(m, `/invoices/${open.id}/pay`);
      expect(ok.status).toBe(200);
      expect([ok.body.status, ok.body.attempt_count, ok.body.amount_paid, ok.body.next_payment_attempt]).toEqual([
        'PAID',
        3,
        100,
        null,
      ]);
      expect(await status(paid.subscriptionId)).toBe('ACTIVE');
      expect((await post(m, `/invoices/${open.id}/pay`)).status).toBe(400);
      expect((await post(m, `/invoices/${open.id}/void`)).status).toBe(400);
    });

    it('POST /invoices/{id}/void forgives the period: PAST_DUE -> ACTIVE, no more retries', async () => {
      const open = (await invoicesOf(m, voided.subscriptionId))[1];
      const res = await post(m, `/invoices/${open.id}/void`);
      expect(res.status).toBe(200);
      expect([res.body.status, res.body.next_payment_attempt]).toEqual(['VOID', null]);
      expect(await status(voided.subscriptionId)).toBe('ACTIVE');
      expect((await post(m, `/invoices/${open.id}/void`)).status).toBe(400);
      expect((await post(m, `/invoices/${open.id}/pay`)).status).toBe(400);
    });

    it('dunning retries 1, 3 and 5 days after the first failure; success on the second retry -> ACTIVE', async () => {
      await advance(m, plus(T0, 8 * DAY_MS + 2 * HOUR_MS));
      for (const d of [exhausted, recovers]) {
        expect((await invoicesOf(m, d.subscriptionId))[1].attempt_count).toBe(2);
        expect(await status(d.subscriptionId)).toBe('PAST_DUE');
      }
      await setCard(recovers.customerId, 'succeed');
      await advance(m, plus(T0, 10 * DAY_MS + 2 * HOUR_MS));
      const recovered = (await invoicesOf(m, recovers.subscriptionId))[1];
      expect([recovered.status, recovered.attempt_count]).toEqual(['PAID', 3]);
      expect(await status(recovers.subscriptionId)).toBe('ACTIVE');
      expect((await invoicesOf(m, exhausted.subscriptionId))[1].attempt_count).toBe(3);
      expect(await status(exhausted.subscriptionId)).toBe('PAST_DUE');

      await advance(m, plus(T0, 12 * DAY_MS + 2 * HOUR_MS));
      const s = await subscription(m, exhausted.subscriptionId);
      expect([s.status, s.cancelled_by]).toEqual(['CANCELLED', 'SYSTEM']);
      const last = (await invoicesOf(m, exhausted.subscriptionId))[1];
      expect([last.status, last.attempt_count, last.next_payment_attempt]).toEqual(['UNCOLLECTIBLE', 4, null]);
      const charges = await chargesOf(exhausted.email);
      expect(charges.map((c) => [c.status, c.reference])).toEqual(
        [1, 2, 3, 4].map((n) => ['failed', `inv-${last.id.replace(/-/g, '')}-${n}`]),
      );
      // Retried on days 1, 3 and 5 after the first failure (business times of the attempts).
      const failures = await queryDatabase<{ at: string }>(
        platform.database('billing'),
        `SELECT provider_response->>'at' AS at FROM payments WHERE invoice_id = $1 ORDER BY reference`,
        [last.id],
      );
      const start = Date.parse(s.current_period_start);
      expect(failures.map((f) => (Date.parse(f.at) - start) / DAY_MS)).toEqual([0, 1, 3, 5]);
      expect(await eventsOf(exhausted.subscriptionId, 'subscription.cancelled')).toHaveLength(1);
      // The voided invoice was never retried.
      expect((await chargesOf(voided.email)).length).toBe(1);
    });

    it('billing_cycles 3 bills three periods and ends EXPIRED (two period ends caught up in one advance)', async () => {
      await advance(m, plus(T0, 21 * DAY_MS + 2 * HOUR_MS));
      const s = await subscription(m, fixed.subscriptionId);
      expect(s.status).toBe('EXPIRED');
      const invoices = await invoicesOf(m, fixed.subscriptionId);
      expect(invoices.map((i) => i.status)).toEqual(['PAID', 'PAID', 'PAID']);
      expect(await eventsOf(fixed.subscriptionId, 'subscription.expired')).toHaveLength(1);
    });

    it('test clock rules: live key 403, backwards 400, GET shows the time; invoice list filters', async () => {
      expect((await api('GET', '/api/v1/test-clock', { apiKey: m.liveKey })).status).toBe(403);
      expect(
        (await api('POST', '/api/v1/test-clock/advance', { apiKey: m.liveKey, body: { to: '2030-01-01T00:00:00Z' } }))
          .status,
      ).toBe(403);
      expect(
        (
          await api('POST', `/api/v1/test-helpers/customers/${paid.customerId}/card`, {
            apiKey: m.liveKey,
            body: { behavior: 'decline' },
          })
        ).status,
      ).toBe(403);
      expect((await post(m, '/test-clock/advance', { to: T0 })).status).toBe(400);
      expect((await get(m, '/test-clock')).body.now >= plus(T0, 21 * DAY_MS + 2 * HOUR_MS)).toBe(true);
      const uncollectible = (await get(m, '/invoices?status=UNCOLLECTIBLE')).body;
      expect(uncollectible.map((i: Json) => i.subscription_id)).toContain(exhausted.subscriptionId);
      expect(uncollectible.every((i: Json) => i.status === 'UNCOLLECTIBLE')).toBe(true);
      const mine = (await get(m, `/invoices?customer_id=${paid.customerId}&limit=2`)).body;
      expect(mine).toHaveLength(2);
      expect(mine.every((i: Json) => i.customer_id === paid.customerId && i.customer_email === paid.email)).toBe(true);
      const next = (await get(m, `/invoices?customer_id=${paid.customerId}&starting_after=${mine[1].id}`)).body;
      expect(next.every((i: Json) => !mine.some((x: Json) => x.id === i.id))).toBe(true);
      expect((await get(m, `/invoices/${randomUUID()}`)).status).toBe(404);
      expect((await get(m, '/invoices/not-an-id')).status).toBe(404);
    });
  });
});
