import type { SandboxControlsClient } from '@billing/payments';
import {
  payCheckoutPageInSandbox,
  queryDatabase,
  scrapeMetrics,
  sharedPlatform,
  waitForLoopPasses,
  type SharedPlatform,
} from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  type Api,
  type Json,
  type RegisteredMerchant,
  merchantCalls,
  createdBody,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { plus, sandboxControlsOf } from './support/test-clock';

const DAY_MS = 24 * 60 * 60 * 1000;
const APRIL_1 = '2027-04-01T09:00:00.000Z';

/**
 * Credit and refunds come only from money that was paid and is still held (docs/api-behaviour.md
 * §10, §18, §19, §20): P of the current period, never a list price. Each story is what a
 * merchant's code does over HTTP, checked in the balance, the invoices and the sandbox provider's
 * own ledger.
 */
describe('credit and refunds never exceed what the customer paid (gateway -> billing -> sandbox)', () => {
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
  const created = (m: RegisteredMerchant, path: string, body: Json) => createdBody(post(m, path, body));
  const advance = async (m: RegisteredMerchant, to: string) =>
    expect((await post(m, '/test-clock/advance', { to })).status).toBe(200);
  const balanceOf = async (m: RegisteredMerchant, customerId: string): Promise<number> =>
    (await get(m, `/customers/${customerId}`)).body.customer.balance;
  const changePlan = async (m: RegisteredMerchant, subscriptionId: string, planId: string) => {
    const res = await post(m, `/subscriptions/${subscriptionId}/change-plan`, { plan_id: planId });
    expect([res.status, res.body.plan_id]).toEqual([200, planId]);
    return res.body;
  };

  it('a 100% FOREVER coupon and three monthly <-> annual round trips leave the balance at 0 and charge nothing', async () => {
    const m = await registerMerchant(api, 'round-trips');
    await advance(m, APRIL_1);
    const monthly = (await created(m, '/plans', { name: 'Monthly', amount: 100 })).id;
    const annual = (await created(m, '/plans', { name: 'Annual', amount: 1000, interval: 'annually' })).id;
    await created(m, '/coupons', { code: 'FREEFOREVER', percent_off: 100, duration: 'FOREVER' });
    // A paying customer with a saved card, then the free subscription this story is about.
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, monthly, 'round-trips');
    const free = await created(m, '/subscriptions', {
      customer_id: payer.customerId,
      plan_id: monthly,
      coupon_code: 'FREEFOREVER',
    });
    const chargesBefore = (await sandbox.ledger({ email: payer.email })).transactions.length;

    let at = APRIL_1;
    for (let trip = 1; trip <= 3; trip++) {
      at = plus(at, DAY_MS);
      await advance(m, at);
      await changePlan(m, free.id, annual);
      at = plus(at, DAY_MS);
      await advance(m, at);
      await changePlan(m, free.id, monthly);
      expect([trip, await balanceOf(m, payer.customerId)]).toEqual([trip, 0]);
    }
    const invoices: Json[] = (await get(m, `/invoices?subscription_id=${free.id}&limit=100`)).body;
    expect(invoices).toHaveLength(7);
    expect(invoices.every((invoice) => invoice.amount === 0 && invoice.amount_due === 0)).toBe(true);
    expect((await sandbox.ledger({ email: payer.email })).transactions).toHaveLength(chargesBefore);
  });

  it('paid 100, downgraded at once to 20 (80 to the balance), cancelled now under FULL: 20 refunded, 100 back in all', async () => {
    const m = await registerMerchant(api, 'downgrade-refund');
    await advance(m, APRIL_1);
    const big = (await created(m, '/plans', { name: 'Big', amount: 100 })).id;
    const small = (await created(m, '/plans', { name: 'Small', amount: 20 })).id;
    const policy = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Full', refund_type: 'FULL', is_default: true },
    });
    expect(policy.status).toBe(201);
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, big, 'downgrade-refund');

    const changed = await changePlan(m, paid.subscriptionId, small);
    expect(changed.latest_invoice).toMatchObject({ status: 'PAID', amount: -80, amount_due: 0 });
    expect(await balanceOf(m, paid.customerId)).toBe(80);

    const preview = await post(m, `/subscriptions/${paid.subscriptionId}/cancel/preview`);
    expect(preview.body.refund).toMatchObject({ amount: 20 });
    const cancelled = await post(m, `/subscriptions/${paid.subscriptionId}/cancel`);
    expect([cancelled.status, cancelled.body.refund?.amount]).toEqual([200, 20]);
    expect((await sandbox.ledger({ email: paid.email })).refunds.map((r) => r.amount)).toEqual([2000]);
    expect(20 + (await balanceOf(m, paid.customerId))).toBe(100);
  });

  it('NGN credit never pays a USD invoice: the USD subscription is charged in full and the NGN balance stays', async () => {
    const m = await registerMerchant(api, 'two-currencies');
    const naira = (await created(m, '/plans', { name: 'Naira', amount: 100 })).id;
    const dollars = (await created(m, '/plans', { name: 'Dollars', amount: 50, currency: 'USD' })).id;
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, naira, 'two-currencies');
    const credit = await created(m, `/customers/${paid.customerId}/balance-adjustments`, { amount: 60 });
    expect(credit).toMatchObject({ amount: 60, balance_after: 60, currency: 'NGN' });
    const refused = await post(m, `/customers/${paid.customerId}/balance-adjustments`, { amount: 5, currency: 'USD' });
    expect([refused.status, refused.body.detail]).toEqual([
      400,
      "The customer's balance is in NGN; a change in USD cannot be made to it",
    ]);

    const subscribed = await post(m, '/subscriptions', { customer_id: paid.customerId, plan_id: dollars });
    expect([subscribed.status, subscribed.status === 201 || subscribed.text]).toEqual([201, true]);
    const usd = subscribed.body;
    const [invoice] = (await get(m, `/invoices?subscription_id=${usd.id}`)).body;
    expect(invoice).toMatchObject({ currency: 'USD', amount: 50, credit_applied: 0, amount_due: 50, status: 'PAID' });
    const customer = (await get(m, `/customers/${paid.customerId}`)).body.customer;
    expect([customer.balance, customer.balance_currency]).toEqual([60, 'NGN']);
    const charges = (await sandbox.ledger({ email: paid.email })).transactions.filter((t) => t.currency === 'USD');
    expect(charges.map((t) => [t.status, t.amount])).toEqual([['success', 5000]]);
  });

  it('billing_cycles 2 and an upgrade in period 1: period 2 is billed at the new price, then the subscription expires', async () => {
    const m = await registerMerchant(api, 'fixed-term');
    await advance(m, APRIL_1);
    const basic = (await created(m, '/plans', { name: 'Basic', amount: 100 })).id;
    const pro = (await created(m, '/plans', { name: 'Pro', amount: 200 })).id;
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, basic, 'fixed-term');
    const fixed = await created(m, '/subscriptions', {
      customer_id: payer.customerId,
      plan_id: basic,
      billing_cycles: 2,
    });
    await advance(m, plus(fixed.current_period_start, 15 * DAY_MS));
    await changePlan(m, fixed.id, pro);

    const secondPeriod = fixed.current_period_end as string;
    await advance(m, plus(secondPeriod, 60_000));
    const renewed = (await get(m, `/subscriptions/${fixed.id}`)).body;
    expect([renewed.status, renewed.current_period_start]).toEqual(['ACTIVE', secondPeriod]);
    await advance(m, plus(renewed.current_period_end, 60_000));
    expect((await get(m, `/subscriptions/${fixed.id}`)).body.status).toBe('EXPIRED');
    const invoices: Json[] = (await get(m, `/invoices?subscription_id=${fixed.id}&limit=100`)).body;
    const periodInvoices = invoices
      .filter((invoice) => invoice.lines.some((line: Json) => line.type === 'SUBSCRIPTION'))
      .map((invoice) => [invoice.period_start, invoice.amount, invoice.status])
      .sort();
    expect(periodInvoices).toEqual([
      [fixed.current_period_start, 100, 'PAID'],
      [secondPeriod, 200, 'PAID'],
    ]);
  });

  it('usage beyond what an invoice can bill: a 422 at intake; a period past 2^53 minor units is parked, not retried, until corrected', async () => {
    const m = await registerMerchant(api, 'usage-bounds');
    await advance(m, APRIL_1);
    const metered = (await created(m, '/plans', { name: 'Metered', amount: 100, usage_unit_amount: 1 })).id;
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, metered, 'usage-bounds');
    const id = payer.subscriptionId;

    const huge = await post(m, `/subscriptions/${id}/usage`, { quantity: '100000000000000000' });
    expect(huge.status).toBe(422);
    expect(huge.body.detail[0].loc).toEqual(['body', 'quantity']);
    expect((await get(m, `/subscriptions/${id}/usage/summary`)).status).toBe(200);

    // 10^10 units at 1.00 is 10^12 minor units, the most one record may bill; 9,008 of them pass 2^53.
    const batch = async (label: string, quantity: string, timestamp?: string) => {
      const records = Array.from({ length: 1000 }, (_, k) => ({
        subscription_id: id,
        quantity,
        idempotency_key: `${label}-${k}`,
        ...(timestamp ? { timestamp } : {}),
      }));
      const res = await post(m, '/usage/batch', { records });
      expect([res.status, res.body.accepted]).toEqual([expect.any(Number), 1000]);
    };
    for (let k = 0; k < 10; k++) await batch(`big-${k}`, '10000000000');
    const summary = await get(m, `/subscriptions/${id}/usage/summary`);
    expect(summary.status).toBe(400);

    const before = (await get(m, `/subscriptions/${id}`)).body;
    const parkedSteps = async () =>
      (await scrapeMetrics(platform, 'billing')).sum('billing_steps_parked_total', { livemode: 'false' });
    const parkedBefore = await parkedSteps();
    await advance(m, plus(before.current_period_end, 60_000));
    const parkedDeadline = Date.now() + 15_000;
    while ((await parkedSteps()) === parkedBefore) {
      if (Date.now() > parkedDeadline) throw new Error('the renewal was not parked');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Two more passes of the scheduler leave it parked: not tried again, not counted again.
    await waitForLoopPasses(platform, 'billing', 'billing-scheduler-test', 2);
    expect(await parkedSteps()).toBe(parkedBefore + 1);
    const parked = (await get(m, `/subscriptions/${id}`)).body;
    expect([parked.status, parked.current_period_start]).toEqual(['ACTIVE', before.current_period_start]);
    expect(platform.output('billing')).toMatch(new RegExp(`${id}.*parked until the usage`));
    expect((await get(m, `/invoices?subscription_id=${id}`)).body).toHaveLength(1);

    // A correction brings the period back within range: the renewal is made on the next pass.
    // Dated within the billed period: a correction of that period's usage.
    await batch('correction', '-10000000000', plus(before.current_period_start, DAY_MS));
    await advance(m, plus(before.current_period_end, 120_000));
    const deadline = Date.now() + 15_000;
    while ((await get(m, `/subscriptions/${id}`)).body.current_period_start === before.current_period_start) {
      if (Date.now() > deadline) throw new Error(`not renewed: ${platform.output('billing').slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const renewal = (await get(m, `/invoices?subscription_id=${id}`)).body.find(
      (invoice: Json) => invoice.period_start === before.current_period_end,
    );
    // 9,000 x 10^12 minor units of usage, 90,000,000,000,000 major units, and the plan's 100.
    expect(renewal).toMatchObject({ amount: 90_000_000_000_100 });
  });

  it('a reused Idempotency-Key answered with a conflict gives no redemption back: times_redeemed stays 1 for the discount it made', async () => {
    const m = await registerMerchant(api, 'reused-key');
    const basic = (await created(m, '/plans', { name: 'Basic', amount: 100 })).id;
    const pro = (await created(m, '/plans', { name: 'Pro', amount: 200 })).id;
    const coupon = await created(m, '/coupons', { code: 'KEEPCOUNT', percent_off: 50, duration: 'FOREVER' });
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, basic, 'reused-key');
    const key = `reused-${payer.customerId}`;
    const subscribe = (planId: string) =>
      api('POST', '/api/v1/subscriptions', {
        apiKey: m.testKey,
        body: { customer_id: payer.customerId, plan_id: planId, coupon_code: 'KEEPCOUNT' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await subscribe(basic);
    expect([first.status, first.body.discount?.code ?? first.body]).toEqual([201, 'KEEPCOUNT']);
    // The gateway's record of the first answer is gone, as when that answer was a 5xx (released,
    // docs/api-behaviour.md §17): the retry, with another plan, reaches billing, which refuses the key.
    await queryDatabase(platform.database('gateway'), 'DELETE FROM idempotency_records WHERE idempotency_key = $1', [
      key,
    ]);
    const reused = await subscribe(pro);
    expect(reused.status).toBe(409);
    expect((await get(m, `/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
  });

  it("a payer who types an existing customer's e-mail: their card pays only their own subscription, which spends none of that customer's balance", async () => {
    const m = await registerMerchant(api, 'same-email');
    await advance(m, APRIL_1);
    const monthly = (await created(m, '/plans', { name: 'Monthly', amount: 100 })).id;
    const owner = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, monthly, 'same-email');
    await created(m, `/customers/${owner.customerId}/balance-adjustments`, { amount: 30 });

    // Someone else pays a checkout the merchant opened without an e-mail, typing the owner's.
    const session = await created(m, '/checkout/sessions', { plan_id: monthly });
    await payCheckoutPageInSandbox(platform.gatewayUrl, session.code, owner.email);
    const other = (await get(m, `/checkout/sessions/${session.code}`)).body;
    expect([other.status, other.customer_id]).toEqual(['COMPLETED', owner.customerId]);

    const ledger = async () => (await sandbox.ledger({ email: owner.email })).transactions;
    const cardOf = async (code: string) =>
      (await ledger()).find((t) => t.reference.startsWith(`cs-${code}-`))?.authorization_code;
    const ownerCard = await cardOf(owner.code);
    const otherCard = await cardOf(session.code);
    expect(ownerCard && otherCard && ownerCard !== otherCard).toBe(true);

    const periodEnd = async (id: string): Promise<string> =>
      (await get(m, `/subscriptions/${id}`)).body.current_period_end;
    const ends = { owner: await periodEnd(owner.subscriptionId), other: await periodEnd(other.subscription_id) };
    await advance(m, plus(ends.other > ends.owner ? ends.other : ends.owner, 60_000));
    const renewalOf = async (subscriptionId: string, start: string) =>
      (await get(m, `/invoices?subscription_id=${subscriptionId}`)).body.find(
        (invoice: Json) => invoice.period_start === start,
      );
    const ownerRenewal = await renewalOf(owner.subscriptionId, ends.owner);
    const otherRenewal = await renewalOf(other.subscription_id, ends.other);
    // The owner's credit pays the owner's subscription only; each subscription its own card.
    expect(ownerRenewal).toMatchObject({ status: 'PAID', credit_applied: 30, amount_due: 70 });
    expect(otherRenewal).toMatchObject({ status: 'PAID', credit_applied: 0, amount_due: 100 });
    const renewalCharges = (await ledger()).filter((t) => t.channel === 'authorization');
    const cardCharged = (invoiceId: string) =>
      renewalCharges.find((t) => t.metadata.invoice_id === invoiceId)?.authorization_code;
    expect([cardCharged(ownerRenewal.id), cardCharged(otherRenewal.id)]).toEqual([ownerCard, otherCard]);
  });
});
