import { randomUUID } from 'node:crypto';
import type { SandboxControlsClient } from '@billing/payments';
import {
  listenLocally,
  type LocalEndpoint,
  queryDatabase,
  sharedPlatform,
  type SharedPlatform,
} from '@billing/testing';
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

/**
 * Every story starts on the merchant's own test clock at 2027-04-01 09:00 UTC, so the monthly
 * period of a checkout paid then runs to 2027-05-01 09:00: 30 days (2,592,000 s). "Half the
 * period" is its start + 15 days (2027-04-16 09:00, to the millisecond of the start): 1,296,000 s
 * unused. The test clock runs on from where it is advanced to (real time + offset), and proration
 * counts whole seconds elapsed (docs/api-behaviour.md §16.24), so a preview and a change made
 * within the second after the advance prorate exactly half.
 */
const APRIL_1 = '2027-04-01T09:00:00.000Z';

// "Within the second after the advance" is a precondition the machine, not the platform, may
// miss: with the other lane's suites on the same two cores, a preview and a change have taken
// over a second, and the change then prorates a second less (the amounts asserted are exactly
// half's). Each test tells its own story on a merchant of its own, so a test is retried, from
// its start, at most twice; a wrong amount repeats and still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * Plan changes (docs/api-behaviour.md §18) through the gateway, on test clocks: every process is
 * real, money is checked in the sandbox provider's own ledger, events in billing's outbox and at
 * a webhook receiver.
 */
describe('plan changes with proration (gateway -> catalog + billing -> sandbox provider)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;
  let receiver: LocalEndpoint | undefined;
  const deliveries: { event: string; data: Json }[] = [];

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
    receiver = await listenLocally((_req, body, res) => {
      deliveries.push(JSON.parse(body.toString('utf8')) as { event: string; data: Json });
      res.writeHead(204).end();
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await platform?.stop();
  });

  const { post, get } = merchantCalls(() => api);

  async function advance(m: RegisteredMerchant, to: string): Promise<void> {
    const res = await post(m, '/test-clock/advance', { to });
    expect(res.status).toBe(200);
    expect(res.body.now).toBe(to);
  }

  async function plan(m: RegisteredMerchant, body: Json): Promise<string> {
    const res = await post(m, '/plans', body);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const subscription = async (m: RegisteredMerchant, id: string) => (await get(m, `/subscriptions/${id}`)).body;
  const customer = async (m: RegisteredMerchant, id: string) => (await get(m, `/customers/${id}`)).body.customer;
  const invoicesOf = async (m: RegisteredMerchant, subscriptionId: string): Promise<Json[]> => {
    const res = await get(m, `/invoices?subscription_id=${subscriptionId}&limit=100`);
    expect(res.status).toBe(200);
    return [...res.body].sort((a: Json, b: Json) => Date.parse(a.created_at) - Date.parse(b.created_at));
  };
  /** The saved-card charges the sandbox provider made for this payer (not the checkout's payment). */
  const chargesOf = async (email: string) =>
    (await sandbox.ledger({ email })).transactions
      .filter((t) => t.channel === 'authorization')
      .map((t) => [t.status, t.amount]);
  const updatedEvents = async (subscriptionId: string) =>
    (
      await queryDatabase<{ payload: Json }>(
        platform.database('billing'),
        `SELECT payload FROM outbox_events WHERE event_type = 'subscription.updated' AND payload->'data'->>'id' = $1
          ORDER BY seq`,
        [subscriptionId],
      )
    ).map((row) => row.payload.data);

  /** A merchant on its own clock at APRIL_1 with a few monthly NGN plans, and a paid checkout of `first`. */
  async function story(label: string, first: 'basic' | 'pro' | 'trial' | 'metered' = 'basic') {
    const m = await registerMerchant(api, label);
    await advance(m, APRIL_1);
    const plans = {
      basic: await plan(m, { name: 'Basic', amount: 10_000 }),
      pro: await plan(m, { name: 'Pro', amount: 20_000 }),
      annual: await plan(m, { name: 'Annual', amount: 100_000, interval: 'annually' }),
      trial: await plan(m, { name: 'Trial Basic', amount: 10_000, trial_period_days: 14 }),
      metered: await plan(m, { name: 'Metered Basic', amount: 10_000, usage_unit_amount: 10 }),
      meteredPro: await plan(m, { name: 'Metered Pro', amount: 20_000, usage_unit_amount: 20 }),
    };
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, plans[first], label);
    const s = await subscription(m, paid.subscriptionId);
    const start: string = s.current_period_start;
    return { m, plans, ...paid, start, end: s.current_period_end as string, half: plus(start, 15 * DAY_MS) };
  }

  /** The preview, then the change with the same body: the preview must be exactly what the change did. */
  async function previewThenChange(m: RegisteredMerchant, id: string, body: Json, headers?: Record<string, string>) {
    const preview = await post(m, `/subscriptions/${id}/change-plan/preview`, body);
    expect(preview.status).toBe(200);
    const changed = await post(m, `/subscriptions/${id}/change-plan`, body, headers);
    return { preview: preview.body, changed };
  }

  /** The preview shows the invoice the change made (or none), line for line and amount for amount. */
  function expectPreviewIs(preview: Json, invoice: Json | null) {
    if (!invoice) {
      expect(preview).toMatchObject({
        lines: [],
        subtotal: 0,
        discount: 0,
        credit_applied: 0,
        amount_due: 0,
        credit_to_balance: 0,
      });
      return;
    }
    expect(preview.lines).toEqual(invoice.lines);
    expect([
      preview.subtotal,
      preview.discount,
      preview.tax,
      preview.amount,
      preview.credit_applied,
      preview.amount_due,
    ]).toEqual([
      invoice.subtotal,
      invoice.discount,
      invoice.tax,
      invoice.amount,
      invoice.credit_applied,
      invoice.amount_due,
    ]);
    expect([preview.period_start, preview.period_end, preview.currency]).toEqual([
      invoice.period_start,
      invoice.period_end,
      invoice.currency,
    ]);
  }

  const prorationLine = (description: string, amount: number, from: string, to: string) => ({
    type: 'PRORATION',
    description,
    quantity: '1',
    unit_amount: amount,
    amount,
    period_start: from,
    period_end: to,
    tax_rates: [],
  });

  it('upgrade NGN 10,000 -> 20,000 at exactly half the period charges 5,000 now (two PRORATION lines), then renews at 20,000', async () => {
    const { m, plans, subscriptionId, email, start, end, half } = await story('upgrade');
    expect([start.slice(0, 10), end]).toEqual(['2027-04-01', addMonths(start, 1)]);
    await advance(m, half);

    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.pro });
    expect(changed.status).toBe(200);
    // The change takes effect at the start of its second of the period: exactly half.
    const at = changed.body.latest_invoice.period_start;
    expect(at).toBe(half);
    expect(changed.body).toMatchObject({
      plan_id: plans.pro,
      plan_name: 'Pro',
      amount: 20_000,
      status: 'ACTIVE',
      current_period_start: start,
      current_period_end: end,
      pending_plan_id: null,
    });
    const invoice = changed.body.latest_invoice;
    expect(invoice).toMatchObject({
      status: 'PAID',
      subtotal: 5000,
      amount: 5000,
      amount_due: 5000,
      amount_paid: 5000,
    });
    expect(invoice.lines).toEqual([
      prorationLine('Unused time on Basic', -5000, at, end),
      prorationLine('Remaining time on Pro', 10_000, at, end),
    ]);
    expectPreviewIs(preview, invoice);
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(2);
    expect(await chargesOf(email)).toEqual([['success', 500_000]]);

    const [updated] = await updatedEvents(subscriptionId);
    expect(updated).toMatchObject({ plan_id: plans.pro, previous_plan_id: plans.basic, amount: 20_000 });

    await advance(m, plus(end, 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[2];
    expect(renewal).toMatchObject({ status: 'PAID', period_start: end, amount: 20_000, amount_paid: 20_000 });
    expect(renewal.lines.map((l: Json) => [l.type, l.description, l.amount])).toEqual([
      ['SUBSCRIPTION', 'Pro', 20_000],
    ]);
    expect(await chargesOf(email)).toEqual([
      ['success', 500_000],
      ['success', 2_000_000],
    ]);
  });

  it("downgrade NGN 20,000 -> 10,000 at half puts 5,000 on the customer's balance; the next renewal charges 10,000 - 5,000", async () => {
    const { m, plans, subscriptionId, customerId, email, end, half } = await story('downgrade', 'pro');
    await advance(m, half);

    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.basic });
    expect(changed.status).toBe(200);
    const invoice = changed.body.latest_invoice;
    const at = invoice.period_start;
    expect(changed.body).toMatchObject({ plan_id: plans.basic, amount: 10_000, current_period_end: end });
    expect(invoice.lines).toEqual([
      prorationLine('Unused time on Pro', -10_000, at, end),
      prorationLine('Remaining time on Basic', 5000, at, end),
    ]);
    expect(invoice).toMatchObject({ status: 'PAID', subtotal: -5000, amount_due: 0, amount_paid: 0 });
    expectPreviewIs(preview, invoice);
    expect(preview.credit_to_balance).toBe(5000);
    expect((await customer(m, customerId)).balance).toBe(5000);
    const ledger = (await get(m, `/customers/${customerId}/balance-adjustments`)).body;
    expect(ledger.map((t: Json) => [t.type, t.amount, t.balance_after])).toEqual([['PRORATION_CREDIT', 5000, 5000]]);
    expect(await chargesOf(email)).toEqual([]);

    await advance(m, plus(end, 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[2];
    expect(renewal).toMatchObject({
      status: 'PAID',
      period_start: end,
      amount: 10_000,
      credit_applied: 5000,
      amount_due: 5000,
      amount_paid: 5000,
    });
    expect((await customer(m, customerId)).balance).toBe(0);
    expect(await chargesOf(email)).toEqual([['success', 500_000]]);
  });

  it('NONE changes the plan now without billing; the next renewal charges the new price', async () => {
    const { m, plans, subscriptionId, email, end, half } = await story('none');
    await advance(m, half);
    const { preview, changed } = await previewThenChange(m, subscriptionId, {
      plan_id: plans.pro,
      proration: 'NONE',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ plan_id: plans.pro, amount: 20_000, latest_invoice: null });
    expectPreviewIs(preview, null);
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(1);
    expect(await chargesOf(email)).toEqual([]);

    await advance(m, plus(end, 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[1];
    expect(renewal).toMatchObject({ status: 'PAID', amount: 20_000 });
    expect(await chargesOf(email)).toEqual([['success', 2_000_000]]);
  });

  it('at_period_end shows the pending change, replaces and clears it, and the renewal applies it', async () => {
    const { m, plans, subscriptionId, email, end, half } = await story('period-end');
    await advance(m, half);
    const later = { plan_id: plans.annual, at_period_end: true };
    const first = await previewThenChange(m, subscriptionId, later);
    expect(first.changed.status).toBe(200);
    expect(first.changed.body).toMatchObject({
      plan_id: plans.basic,
      pending_plan_id: plans.annual,
      pending_plan_change_at: end,
      latest_invoice: null,
    });
    expectPreviewIs(first.preview, null);
    expect([first.preview.period_start, first.preview.period_end]).toEqual([
      first.changed.body.current_period_start,
      end,
    ]);
    // A later call replaces it; at_period_end with the current plan clears it; then Pro again.
    const replaced = await post(m, `/subscriptions/${subscriptionId}/change-plan`, {
      plan_id: plans.pro,
      at_period_end: true,
    });
    expect(replaced.body.pending_plan_id).toBe(plans.pro);
    const cleared = await post(m, `/subscriptions/${subscriptionId}/change-plan`, {
      plan_id: plans.basic,
      at_period_end: true,
    });
    expect([cleared.status, cleared.body.pending_plan_id, cleared.body.pending_plan_change_at]).toEqual([
      200,
      null,
      null,
    ]);
    const again = await previewThenChange(m, subscriptionId, { plan_id: plans.pro, at_period_end: true });
    expect(again.changed.body).toMatchObject({ plan_id: plans.basic, pending_plan_id: plans.pro });
    expectPreviewIs(again.preview, null);
    expect((await subscription(m, subscriptionId)).pending_plan_change_at).toBe(end);
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(1);

    await advance(m, plus(end, 60_000));
    const renewed = await subscription(m, subscriptionId);
    expect(renewed).toMatchObject({
      plan_id: plans.pro,
      amount: 20_000,
      current_period_start: end,
      current_period_end: addMonths(end, 1),
      pending_plan_id: null,
      pending_plan_change_at: null,
    });
    const renewal = (await invoicesOf(m, subscriptionId))[1];
    expect(renewal.lines.map((l: Json) => [l.type, l.description, l.amount])).toEqual([
      ['SUBSCRIPTION', 'Pro', 20_000],
    ]);
    expect(await chargesOf(email)).toEqual([['success', 2_000_000]]);
    const events = await updatedEvents(subscriptionId);
    expect(events.map((e: Json) => [e.plan_id, e.previous_plan_id, e.pending_plan_id])).toEqual([
      [plans.basic, plans.basic, plans.annual],
      [plans.basic, plans.basic, plans.pro],
      [plans.basic, plans.basic, null],
      [plans.basic, plans.basic, plans.pro],
      [plans.pro, plans.basic, null],
    ]);
  });

  it('monthly -> annual moves the anchor: a new yearly period from now, invoiced at the annual price less the unused month', async () => {
    const { m, plans, subscriptionId, email, end, half } = await story('annual');
    await advance(m, half);
    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.annual });
    expect(changed.status).toBe(200);
    const invoice = changed.body.latest_invoice;
    const at = invoice.period_start;
    expect(changed.body).toMatchObject({
      plan_id: plans.annual,
      interval: 'annually',
      amount: 100_000,
      current_period_start: at,
      current_period_end: addMonths(at, 12),
    });
    expect(invoice).toMatchObject({ status: 'PAID', period_end: addMonths(at, 12), amount_due: 95_000 });
    expect(invoice.lines).toEqual([
      prorationLine('Unused time on Basic', -5000, at, end),
      {
        type: 'SUBSCRIPTION',
        description: 'Annual',
        quantity: '1',
        unit_amount: 100_000,
        amount: 100_000,
        period_start: at,
        period_end: addMonths(at, 12),
        tax_rates: [],
      },
    ]);
    expectPreviewIs(preview, invoice);
    expect(await chargesOf(email)).toEqual([['success', 9_500_000]]);

    // The old period's end passes without a renewal; the year's end renews at the annual price.
    await advance(m, plus(end, 60_000));
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(2);
    await advance(m, plus(addMonths(at, 12), 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[2];
    expect(renewal).toMatchObject({ status: 'PAID', period_start: addMonths(at, 12), amount: 100_000 });
    expect(await chargesOf(email)).toEqual([
      ['success', 9_500_000],
      ['success', 10_000_000],
    ]);
  });

  it('a declined upgrade charge is a 402 and changes nothing: plan, period, balance; its invoice VOID', async () => {
    const { m, plans, subscriptionId, customerId, email, start, end, half } = await story('declined');
    expect((await post(m, `/test-helpers/customers/${customerId}/card`, { behavior: 'decline' })).status).toBe(200);
    await advance(m, half);
    const before = await subscription(m, subscriptionId);
    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.pro });
    expect(changed.status).toBe(402);
    expect(changed.body).toEqual({ detail: 'Declined' });
    expect(await subscription(m, subscriptionId)).toEqual(before);
    expect(before).toMatchObject({ plan_id: plans.basic, current_period_start: start, current_period_end: end });
    const invoices = await invoicesOf(m, subscriptionId);
    expect(invoices.map((i) => i.status)).toEqual(['PAID', 'VOID']);
    expectPreviewIs(preview, invoices[1]);
    expect((await customer(m, customerId)).balance).toBe(0);
    expect(await chargesOf(email)).toEqual([['failed', 500_000]]);
    expect(await updatedEvents(subscriptionId)).toEqual([]);
  });

  it('during a trial the plan changes, nothing is billed, the trial keeps its end; the first charge is the new price', async () => {
    const { m, plans, subscriptionId, email } = await story('trial', 'trial');
    const trialing = await subscription(m, subscriptionId);
    expect(trialing.status).toBe('TRIALING');
    await advance(m, plus(trialing.current_period_start, 7 * DAY_MS));
    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.pro });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      status: 'TRIALING',
      plan_id: plans.pro,
      trial_end: trialing.trial_end,
      current_period_end: trialing.trial_end,
      latest_invoice: null,
    });
    expectPreviewIs(preview, null);
    expect(await invoicesOf(m, subscriptionId)).toEqual([]);
    expect(await chargesOf(email)).toEqual([]);

    await advance(m, plus(trialing.trial_end, 60_000));
    const [first] = await invoicesOf(m, subscriptionId);
    expect(first).toMatchObject({ status: 'PAID', period_start: trialing.trial_end, amount: 20_000 });
    expect((await subscription(m, subscriptionId)).status).toBe('ACTIVE');
    expect(await chargesOf(email)).toEqual([['success', 2_000_000]]);
  });

  it('metered plans: an IMMEDIATE change bills the usage up to it at the old unit price; the renewal bills the rest at the new one', async () => {
    const { m, plans, subscriptionId, start, end, half } = await story('metered', 'metered');
    await advance(m, half);
    // Recorded on day 10, before the change (a record of the change's own second would be the new plan's).
    const day10 = plus(start, 10 * DAY_MS);
    expect((await post(m, `/subscriptions/${subscriptionId}/usage`, { quantity: '30', timestamp: day10 })).status).toBe(
      201,
    );
    const { preview, changed } = await previewThenChange(m, subscriptionId, { plan_id: plans.meteredPro });
    expect(changed.status).toBe(200);
    const invoice = changed.body.latest_invoice;
    const at = invoice.period_start;
    expect(invoice.lines.map((l: Json) => [l.type, l.description, l.quantity, l.unit_amount, l.amount])).toEqual([
      ['PRORATION', 'Unused time on Metered Basic', '1', -5000, -5000],
      ['PRORATION', 'Remaining time on Metered Pro', '1', 10_000, 10_000],
      ['USAGE', 'Usage on Metered Basic (30 units)', '30', 10, 300],
    ]);
    expect(invoice.amount_due).toBe(5300);
    expectPreviewIs(preview, invoice);

    expect((await post(m, `/subscriptions/${subscriptionId}/usage`, { quantity: '10' })).status).toBe(201);
    await advance(m, plus(end, 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[2];
    expect(renewal.lines.map((l: Json) => [l.type, l.description, l.amount, l.period_start, l.period_end])).toEqual([
      ['SUBSCRIPTION', 'Metered Pro', 20_000, end, addMonths(end, 1)],
      ['USAGE', 'Usage on Metered Pro (10 units)', 200, at, end],
    ]);
  });

  it('NONE on a metered plan: the renewal bills one usage line per plan in force, each at its unit price', async () => {
    const { m, plans, subscriptionId, start, end, half } = await story('metered-none', 'metered');
    await advance(m, half);
    const day10 = plus(start, 10 * DAY_MS);
    expect((await post(m, `/subscriptions/${subscriptionId}/usage`, { quantity: '30', timestamp: day10 })).status).toBe(
      201,
    );
    const changed = await post(m, `/subscriptions/${subscriptionId}/change-plan`, {
      plan_id: plans.meteredPro,
      proration: 'NONE',
    });
    expect([changed.status, changed.body.latest_invoice]).toEqual([200, null]);
    expect((await updatedEvents(subscriptionId)).map((e: Json) => e.plan_id)).toEqual([plans.meteredPro]);
    expect((await post(m, `/subscriptions/${subscriptionId}/usage`, { quantity: '10' })).status).toBe(201);
    const summary = (await get(m, `/subscriptions/${subscriptionId}/usage/summary`)).body;
    expect([summary.unbilled_quantity, summary.estimated_amount]).toEqual(['40', 500]);

    await advance(m, plus(end, 60_000));
    const renewal = (await invoicesOf(m, subscriptionId))[1];
    const lines = renewal.lines.map((l: Json) => [l.type, l.description, l.unit_amount, l.amount, l.period_start]);
    expect(lines[0]).toEqual(['SUBSCRIPTION', 'Metered Pro', 20_000, 20_000, end]);
    expect(lines.slice(1).map((l: Json[]) => l.slice(0, 4))).toEqual([
      ['USAGE', 'Usage on Metered Basic (30 units)', 10, 300],
      ['USAGE', 'Usage on Metered Pro (10 units)', 20, 200],
    ]);
    expect(lines[1][4]).toBe(start);
    expect(renewal.amount).toBe(20_500);
  });

  it('an upgrade racing the renewal at the period end bills the new period once, at one price', async () => {
    const { m, plans, subscriptionId, email, end } = await story('race');
    await advance(m, plus(end, -2000));
    // The change and the advance that renews, sent together: whichever takes the row first, the
    // other sees what it did (or the change waits with a 503 for the renewal it would precede).
    const [changed, advanced] = await Promise.all([
      post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.pro }),
      post(m, '/test-clock/advance', { to: plus(end, 60_000) }),
    ]);
    expect(advanced.status).toBe(200);
    expect([200, 503]).toContain(changed.status);
    const periodInvoices = (await invoicesOf(m, subscriptionId)).filter((i) =>
      i.lines.some((l: Json) => l.type === 'SUBSCRIPTION' && l.period_start === end),
    );
    expect(periodInvoices).toHaveLength(1);
    const charged = (await chargesOf(email)).reduce(
      (sum, [status, amount]) => sum + (status === 'success' ? Number(amount) : 0),
      0,
    );
    if (changed.status === 503) {
      expect((await subscription(m, subscriptionId)).plan_id).toBe(plans.basic);
      expect(charged).toBe(1_000_000);
      return;
    }
    // Change first: ~0 of proration, then the renewal at Pro's price. Renewal first: Basic's
    // price, then the proration of (almost) the whole new period. Either way about one Pro
    // period, never a period at both prices.
    expect((await subscription(m, subscriptionId)).plan_id).toBe(plans.pro);
    expect(charged).toBeGreaterThan(1_999_000);
    expect(charged).toBeLessThan(2_001_000);
  });

  it('refuses what section 18 refuses: same plan, other currency, inactive, unknown or foreign plan, a cancelled subscription', async () => {
    const { m, plans, subscriptionId } = await story('rules');
    const other = await registerMerchant(api, 'rules-other');
    const foreign = await plan(other, { name: 'Foreign', amount: 10 });
    const usd = await plan(m, { name: 'Dollars', amount: 10, currency: 'USD' });
    const retired = await plan(m, { name: 'Retired', amount: 10 });
    expect((await api('DELETE', `/api/v1/plans/${retired}`, { apiKey: m.testKey })).status).toBe(204);
    const cases: [Json, number, RegExp][] = [
      [{ plan_id: plans.basic }, 400, /already on this plan/],
      [{ plan_id: usd }, 400, /billed in USD/],
      [{ plan_id: retired }, 400, /not active/],
      [{ plan_id: randomUUID() }, 404, /not found/i],
      [{ plan_id: foreign }, 403, /another project/],
    ];
    for (const [body, status, detail] of cases) {
      for (const path of ['change-plan', 'change-plan/preview']) {
        const res = await post(m, `/subscriptions/${subscriptionId}/${path}`, body);
        expect([path, res.status]).toEqual([path, status]);
        expect(res.body.detail).toMatch(detail);
      }
    }
    expect((await post(m, `/subscriptions/${randomUUID()}/change-plan`, { plan_id: plans.pro })).status).toBe(404);
    expect(
      (await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.pro, proration: 'x' })).status,
    ).toBe(422);
    expect((await post(m, `/subscriptions/${subscriptionId}/cancel`)).status).toBe(200);
    const cancelled = await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.pro });
    expect([cancelled.status, cancelled.body.detail]).toEqual([
      400,
      'A cancelled subscription cannot change plan; only active and trialing ones can',
    ]);
  });

  it('an Idempotency-Key makes a retried upgrade answer the first change: one invoice, one charge', async () => {
    const { m, plans, subscriptionId, email, half } = await story('idempotent');
    await advance(m, half);
    const headers = { 'Idempotency-Key': `change-${randomUUID()}` };
    const first = await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.pro }, headers);
    const again = await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.pro }, headers);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    expect(await invoicesOf(m, subscriptionId)).toHaveLength(2);
    expect(await chargesOf(email)).toEqual([['success', 500_000]]);
    const other = await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: plans.basic }, headers);
    expect(other.status).toBe(409);
  });

  it('webhook receivers get subscription.updated with previous_plan_id', async () => {
    const { m, plans, subscriptionId, half } = await story('webhook');
    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: m.testKey,
      token: m.token,
      body: { url: `${receiver!.url}/hooks`, events: ['subscription.updated'] },
    });
    expect(hook.status).toBe(201);
    await advance(m, half);
    const changed = await post(m, `/subscriptions/${subscriptionId}/change-plan`, {
      plan_id: plans.pro,
      proration: 'NONE',
    });
    expect(changed.status).toBe(200);
    const deadline = Date.now() + 20_000;
    let delivered: { event: string; data: Json } | undefined;
    while (!delivered && Date.now() < deadline) {
      delivered = deliveries.find((d) => d.event === 'subscription.updated' && d.data.id === subscriptionId);
      if (!delivered) await new Promise((r) => setTimeout(r, 50));
    }
    expect(delivered?.data).toMatchObject({
      id: subscriptionId,
      plan_id: plans.pro,
      plan_name: 'Pro',
      previous_plan_id: plans.basic,
      pending_plan_id: null,
      amount: 20_000,
    });
  });
});
