import { randomUUID } from 'node:crypto';
import type { SandboxControlsClient } from '@billing/payments';
import { payCheckoutPageInSandbox, queryDatabase, sharedPlatform, type SharedPlatform } from '@billing/testing';
import {
  gatewayApi,
  registerMerchant,
  UUID,
  type Api,
  type Json,
  type RegisteredMerchant,
  merchantCalls,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { sandboxControlsOf } from './support/test-clock';

const DAY_MS = 24 * 60 * 60 * 1000;

const COUPON_FIELDS = [
  'amount_off',
  'code',
  'created_at',
  'currency',
  'duration',
  'duration_in_periods',
  'id',
  'is_active',
  'livemode',
  'max_redemptions',
  'name',
  'percent_off',
  'plan_ids',
  'redeem_by',
  'times_redeemed',
].sort();

/**
 * Coupons and discounts (docs/api-behaviour.md §19) through the gateway, every process real:
 * catalog counts redemptions, billing discounts the invoices, the sandbox provider's own ledger
 * says what was charged. Each test has its own merchant (its own project and test clock). A
 * redemption catalog could not give back: crashes-and-outages.test.ts (it makes the give-back fail).
 */
describe('coupons and discounts (gateway -> catalog + billing -> sandbox provider)', () => {
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

  const { post, get, del } = merchantCalls(() => api);

  async function plan(m: RegisteredMerchant, body: Json): Promise<string> {
    const res = await post(m, '/plans', body);
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function coupon(m: RegisteredMerchant, body: Json): Promise<Json> {
    const res = await post(m, '/coupons', body);
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body;
  }

  const timesRedeemed = async (m: RegisteredMerchant, id: string) =>
    (await get(m, `/coupons/${id}`)).body.times_redeemed;

  /**
   * A customer with a saved card, from a paid checkout of a plan whose trial outlasts every test
   * (so nothing of it is ever charged): the sandbox ledger then holds only what a test charges.
   */
  async function customerWithCard(m: RegisteredMerchant, label: string) {
    const cardPlan = await plan(m, { name: 'Card check', amount: 1, trial_period_days: 730 });
    return payHostedCheckout(api, platform.gatewayUrl, m.testKey, cardPlan, label);
  }

  /** What the saved card was charged, oldest first, in minor units. */
  const chargesOf = async (email: string) =>
    (await sandbox.ledger({ email })).transactions
      .filter((t) => t.channel === 'authorization')
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
      .map((t) => [t.amount, t.status]);

  const invoicesOf = async (m: RegisteredMerchant, subscriptionId: string): Promise<Json[]> => {
    const res = await get(m, `/invoices?subscription_id=${subscriptionId}&limit=100`);
    expect(res.status).toBe(200);
    return [...res.body].sort((a: Json, b: Json) => Date.parse(a.period_start) - Date.parse(b.period_start));
  };

  /** Moves the project's clock just past the subscription's current period end: one renewal. */
  async function renew(m: RegisteredMerchant, subscriptionId: string): Promise<Json> {
    const before = (await get(m, `/subscriptions/${subscriptionId}`)).body;
    const to = new Date(Date.parse(before.current_period_end) + 60_000).toISOString();
    expect((await post(m, '/test-clock/advance', { to })).status).toBe(200);
    const after = (await get(m, `/subscriptions/${subscriptionId}`)).body;
    expect(after.current_period_start).toBe(before.current_period_end);
    return after;
  }

  const linesOf = (invoice: Json) => invoice.lines.map((l: Json) => [l.type, l.amount]);

  describe('the coupon resource', () => {
    it('creates a coupon exactly as §19 shows it: code upper case, percent_off exact, plan_ids null = every plan', async () => {
      const m = await registerMerchant(api, 'coupon-shape');
      const res = await post(m, '/coupons', {
        code: 'welcome-25_a',
        name: 'Welcome',
        percent_off: 12.5,
        duration: 'repeating',
        duration_in_periods: 3,
        max_redemptions: 10,
        redeem_by: '2099-01-01T00:00:00Z',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(COUPON_FIELDS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        code: 'WELCOME-25_A',
        name: 'Welcome',
        percent_off: 12.5,
        amount_off: null,
        currency: null,
        duration: 'REPEATING',
        duration_in_periods: 3,
        max_redemptions: 10,
        times_redeemed: 0,
        redeem_by: '2099-01-01T00:00:00.000Z',
        plan_ids: null,
        is_active: true,
        livemode: false,
        created_at: expect.any(String),
      });
      const stored = await queryDatabase<{ percent_off: string }>(
        platform.database('catalog'),
        'SELECT percent_off::text FROM coupons WHERE id = $1',
        [res.body.id],
      );
      expect(stored).toEqual([{ percent_off: '12.50' }]);

      const planId = await plan(m, { name: 'Pro', amount: 5000 });
      const amount = await coupon(m, {
        code: 'TAKE2K',
        amount_off: 2000.5,
        currency: 'ngn',
        duration: 'ONCE',
        plan_ids: [planId],
      });
      expect(amount).toMatchObject({
        percent_off: null,
        amount_off: 2000.5,
        currency: 'NGN',
        duration: 'ONCE',
        duration_in_periods: null,
        max_redemptions: null,
        redeem_by: null,
        plan_ids: [planId],
      });
      expect((await get(m, `/coupons/${amount.id}`)).body).toEqual(amount);
    });

    it('409 for a code the project and mode already have, whatever its case; another mode or project may reuse it', async () => {
      const m = await registerMerchant(api, 'coupon-dup');
      await coupon(m, { code: 'SPRING', percent_off: 10, duration: 'ONCE' });
      const dup = await post(m, '/coupons', { code: 'spring', amount_off: 5, currency: 'NGN', duration: 'FOREVER' });
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ detail: 'A coupon with the code SPRING already exists' });
      const live = await api('POST', '/api/v1/coupons', {
        apiKey: m.liveKey,
        body: { code: 'SPRING', percent_off: 10, duration: 'ONCE' },
      });
      expect(live.status).toBe(201);
      const other = await registerMerchant(api, 'coupon-dup-other');
      expect((await post(other, '/coupons', { code: 'SPRING', percent_off: 10, duration: 'ONCE' })).status).toBe(201);
    });

    it.each<[string, Json, (string | number)[]]>([
      ['no code', { percent_off: 10, duration: 'ONCE' }, ['body', 'code']],
      ['a 2-character code', { code: 'AB', percent_off: 10, duration: 'ONCE' }, ['body', 'code']],
      ['a 41-character code', { code: 'A'.repeat(41), percent_off: 10, duration: 'ONCE' }, ['body', 'code']],
      ['a code with a space', { code: 'NEW YEAR', percent_off: 10, duration: 'ONCE' }, ['body', 'code']],
      ['neither percent_off nor amount_off', { code: 'NONE', duration: 'ONCE' }, ['body', 'percent_off']],
      [
        'both percent_off and amount_off',
        { code: 'BOTH', percent_off: 10, amount_off: 5, currency: 'NGN', duration: 'ONCE' },
        ['body', 'amount_off'],
      ],
      ['percent_off 0', { code: 'ZERO', percent_off: 0, duration: 'ONCE' }, ['body', 'percent_off']],
      ['percent_off above 100', { code: 'OVER', percent_off: 100.01, duration: 'ONCE' }, ['body', 'percent_off']],
      ['percent_off with 3 decimals', { code: 'FINE', percent_off: 10.125, duration: 'ONCE' }, ['body', 'percent_off']],
      ['amount_off without currency', { code: 'NOCUR', amount_off: 5, duration: 'ONCE' }, ['body', 'currency']],
      [
        'currency with percent_off',
        { code: 'PCUR', percent_off: 5, currency: 'NGN', duration: 'ONCE' },
        ['body', 'currency'],
      ],
      ['an unknown currency', { code: 'EUR', amount_off: 5, currency: 'EUR', duration: 'ONCE' }, ['body', 'currency']],
      [
        'amount_off with 3 decimals',
        { code: 'AMT', amount_off: 1.005, currency: 'NGN', duration: 'ONCE' },
        ['body', 'amount_off'],
      ],
      ['an unknown duration', { code: 'DUR', percent_off: 5, duration: 'MONTHLY' }, ['body', 'duration']],
      [
        'REPEATING without periods',
        { code: 'REP', percent_off: 5, duration: 'REPEATING' },
        ['body', 'duration_in_periods'],
      ],
      [
        'REPEATING with 121 periods',
        { code: 'REP', percent_off: 5, duration: 'REPEATING', duration_in_periods: 121 },
        ['body', 'duration_in_periods'],
      ],
      [
        'periods with FOREVER',
        { code: 'FOR', percent_off: 5, duration: 'FOREVER', duration_in_periods: 2 },
        ['body', 'duration_in_periods'],
      ],
      [
        'max_redemptions 0',
        { code: 'MAX', percent_off: 5, duration: 'ONCE', max_redemptions: 0 },
        ['body', 'max_redemptions'],
      ],
      [
        'redeem_by in the past',
        { code: 'PAST', percent_off: 5, duration: 'ONCE', redeem_by: '2020-01-01T00:00:00Z' },
        ['body', 'redeem_by'],
      ],
      [
        'a plan id that is not one',
        { code: 'PLAN', percent_off: 5, duration: 'ONCE', plan_ids: ['x'] },
        ['body', 'plan_ids', 0],
      ],
    ])('422 for %s', async (_name, body, loc) => {
      const m = await registerMerchant(api, 'coupon-422');
      const res = await post(m, '/coupons', body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
      expect((await get(m, '/coupons')).body).toEqual([]);
    });

    it('plan_ids must be plans of the project and mode: unknown 404, another project 403', async () => {
      const m = await registerMerchant(api, 'coupon-plans');
      const other = await registerMerchant(api, 'coupon-plans-other');
      const foreign = await plan(other, { name: 'Theirs', amount: 100 });
      const body = { code: 'ONLY', percent_off: 5, duration: 'ONCE' };
      expect((await post(m, '/coupons', { ...body, plan_ids: [randomUUID()] })).status).toBe(404);
      expect((await post(m, '/coupons', { ...body, plan_ids: [foreign] })).status).toBe(403);
      const live = await api('POST', '/api/v1/plans', { apiKey: m.liveKey, body: { name: 'Live', amount: 100 } });
      expect((await post(m, '/coupons', { ...body, plan_ids: [live.body.id] })).status).toBe(404);
    });

    it('lists newest first with paging, gets, deactivates (204) and answers 404/403 as every id', async () => {
      const m = await registerMerchant(api, 'coupon-list');
      const made = [];
      for (const code of ['AAA', 'BBB', 'CCC']) made.push(await coupon(m, { code, percent_off: 5, duration: 'ONCE' }));
      const first = await get(m, '/coupons?limit=2');
      expect(first.body.map((c: Json) => c.code)).toEqual(['CCC', 'BBB']);
      const next = await get(m, `/coupons?limit=2&starting_after=${first.body[1].id}`);
      expect(next.body.map((c: Json) => c.code)).toEqual(['AAA']);
      expect((await get(m, `/coupons?starting_after=${next.body[0].id}`)).body).toEqual([]);
      expect((await get(m, `/coupons?starting_after=${randomUUID()}`)).status).toBe(400);

      const gone = await del(m, `/coupons/${made[0].id}`);
      expect([gone.status, gone.text]).toEqual([204, '']);
      expect((await get(m, `/coupons/${made[0].id}`)).body.is_active).toBe(false);
      expect((await del(m, `/coupons/${made[0].id}`)).status).toBe(204);

      expect((await get(m, `/coupons/${randomUUID()}`)).status).toBe(404);
      expect((await get(m, '/coupons/not-an-id')).status).toBe(404);
      const other = await registerMerchant(api, 'coupon-list-other');
      expect((await get(other, `/coupons/${made[1].id}`)).status).toBe(403);
      expect((await del(other, `/coupons/${made[1].id}`)).status).toBe(403);
      expect((await api('GET', `/api/v1/coupons/${made[1].id}`, { apiKey: m.liveKey })).status).toBe(404);
    });
  });

  describe('redeeming', () => {
    it('refuses each reason with its own 400 detail, creating and counting nothing', async () => {
      const m = await registerMerchant(api, 'refusals');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const otherPlan = await plan(m, { name: 'Other', amount: 10000 });
      const { customerId, subscriptionId } = await customerWithCard(m, 'refusals');
      const clock = (await get(m, '/test-clock')).body.now;

      const inactive = await coupon(m, { code: 'GONE', percent_off: 10, duration: 'ONCE' });
      expect((await del(m, `/coupons/${inactive.id}`)).status).toBe(204);
      const expiring = await coupon(m, {
        code: 'SOON',
        percent_off: 10,
        duration: 'ONCE',
        redeem_by: new Date(Date.parse(clock) + DAY_MS).toISOString(),
      });
      const single = await coupon(m, { code: 'ONE', percent_off: 10, duration: 'ONCE', max_redemptions: 1 });
      const excluded = await coupon(m, { code: 'OTHERPLAN', percent_off: 10, duration: 'ONCE', plan_ids: [otherPlan] });
      const dollars = await coupon(m, { code: 'DOLLARS', amount_off: 5, currency: 'USD', duration: 'ONCE' });
      // The last redemption of ONE goes to the card-check subscription.
      expect((await post(m, `/subscriptions/${subscriptionId}/discount`, { coupon_code: 'one' })).status).toBe(200);
      expect(
        (await post(m, '/test-clock/advance', { to: new Date(Date.parse(clock) + 2 * DAY_MS).toISOString() })).status,
      ).toBe(200);

      const refusals: [string, string][] = [
        ['nosuch', 'The coupon code NOSUCH does not exist'],
        ['gone', 'The coupon GONE is no longer active'],
        ['SOON', `The coupon SOON expired: it could be redeemed until ${expiring.redeem_by}`],
        ['One', 'The coupon ONE has been redeemed the maximum number of times (1)'],
        ['otherplan', 'The coupon OTHERPLAN does not apply to this plan'],
        ['DOLLARS', 'The coupon DOLLARS is for USD; this plan is billed in NGN'],
      ];
      for (const [code, detail] of refusals) {
        const created = await post(m, '/subscriptions', {
          customer_id: customerId,
          plan_id: planId,
          coupon_code: code,
        });
        expect([code, created.status, created.body]).toEqual([code, 400, { detail }]);
        const checkout = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: code });
        expect([code, checkout.status, checkout.body]).toEqual([code, 400, { detail }]);
      }
      // On an existing subscription the plan is the subscription's (the card-check plan, not OTHERPLAN's).
      for (const [code, detail] of refusals) {
        const applied = await post(m, `/subscriptions/${subscriptionId}/discount`, { coupon_code: code });
        expect([code, applied.status, applied.body]).toEqual([code, 400, { detail }]);
      }
      const subscriptions = (await get(m, `/subscriptions?customer_id=${customerId}`)).body;
      expect(subscriptions).toHaveLength(1);
      for (const c of [inactive, expiring, excluded, dollars]) expect(await timesRedeemed(m, c.id)).toBe(0);
      expect(await timesRedeemed(m, single.id)).toBe(1);
      expect((await get(m, `/subscriptions/${subscriptionId}`)).body.discount).toMatchObject({ code: 'ONE' });
    });

    it('20 concurrent POST /subscriptions with a coupon of max_redemptions 5: exactly 5 succeed, times_redeemed 5', async () => {
      const m = await registerMerchant(api, 'race-create');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const race = await coupon(m, { code: 'RACE5', percent_off: 10, duration: 'FOREVER', max_redemptions: 5 });
      const { customerId, email } = await customerWithCard(m, 'race-create');

      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(m, '/subscriptions', { customer_id: customerId, plan_id: planId, coupon_code: 'race5' }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      expect(created).toHaveLength(5);
      for (const refused of answers.filter((a) => a.status !== 201)) {
        expect([refused.status, refused.body]).toEqual([
          400,
          { detail: 'The coupon RACE5 has been redeemed the maximum number of times (5)' },
        ]);
      }
      expect(await timesRedeemed(m, race.id)).toBe(5);
      const redemptions = await queryDatabase<{ n: number }>(
        platform.database('catalog'),
        `SELECT count(*)::int AS n FROM coupon_redemptions WHERE coupon_id = $1 AND status = 'ACTIVE'`,
        [race.id],
      );
      expect(redemptions).toEqual([{ n: 5 }]);
      for (const a of created) expect(a.body.discount).toMatchObject({ code: 'RACE5', percent_off: 10 });
      // Five first charges of 9,000, and nothing else.
      expect(await chargesOf(email)).toEqual(Array.from({ length: 5 }, () => [900000, 'success']));
    });

    it('20 concurrent POST /subscriptions/{id}/discount with a coupon of max_redemptions 5: exactly 5 succeed', async () => {
      const m = await registerMerchant(api, 'race-apply');
      const race = await coupon(m, {
        code: 'APPLY5',
        amount_off: 100,
        currency: 'NGN',
        duration: 'FOREVER',
        max_redemptions: 5,
      });
      const { subscriptionId } = await customerWithCard(m, 'race-apply');
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(m, `/subscriptions/${subscriptionId}/discount`, { coupon_code: 'APPLY5' }),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
      expect(answers.filter((a) => a.status === 400)).toHaveLength(15);
      expect(await timesRedeemed(m, race.id)).toBe(5);
    });

    it('gives the redemption back when the first charge is declined (402, nothing created)', async () => {
      const m = await registerMerchant(api, 'giveback');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const only = await coupon(m, { code: 'LASTONE', percent_off: 50, duration: 'ONCE', max_redemptions: 1 });
      const { customerId, email } = await customerWithCard(m, 'giveback');
      const card = (behavior: string) => post(m, `/test-helpers/customers/${customerId}/card`, { behavior });

      expect((await card('decline')).status).toBe(200);
      const declined = await post(
        m,
        '/subscriptions',
        { customer_id: customerId, plan_id: planId, coupon_code: 'LASTONE' },
        {
          'Idempotency-Key': `k-${randomUUID()}`,
        },
      );
      expect([declined.status, declined.body]).toEqual([402, { detail: 'Declined' }]);
      expect(await timesRedeemed(m, only.id)).toBe(0);
      expect((await get(m, `/subscriptions?customer_id=${customerId}`)).body).toHaveLength(1);

      expect((await card('succeed')).status).toBe(200);
      const paid = await post(m, '/subscriptions', {
        customer_id: customerId,
        plan_id: planId,
        coupon_code: 'LASTONE',
      });
      expect(paid.status).toBe(201);
      expect(await timesRedeemed(m, only.id)).toBe(1);
      // The declined attempt charged the discounted 5,000 too; the one that went through, once.
      expect(await chargesOf(email)).toEqual([
        [500000, 'failed'],
        [500000, 'success'],
      ]);
    });
  });

  describe('discounted invoices', () => {
    it('25% REPEATING 3 at creation on a monthly 10,000 NGN plan: the first invoice and the next two renewals are 7,500, then 10,000', async () => {
      const m = await registerMerchant(api, 'repeat-create');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const quarter = await coupon(m, {
        code: 'QUARTER',
        percent_off: 25,
        duration: 'REPEATING',
        duration_in_periods: 3,
      });
      const { customerId, email } = await customerWithCard(m, 'repeat-create');

      const created = await post(m, '/subscriptions', {
        customer_id: customerId,
        plan_id: planId,
        coupon_code: 'quarter',
      });
      expect(created.status).toBe(201);
      // The first invoice (made now) used one of the three periods.
      expect(created.body.discount).toEqual({
        coupon_id: quarter.id,
        code: 'QUARTER',
        percent_off: 25,
        amount_off: null,
        ends_after_periods_remaining: 2,
      });
      const id = created.body.id;
      expect((await renew(m, id)).discount).toMatchObject({ ends_after_periods_remaining: 1 });
      expect((await renew(m, id)).discount).toBeNull();
      expect((await renew(m, id)).discount).toBeNull();
      await renew(m, id);

      const invoices = await invoicesOf(m, id);
      expect(invoices.map((i) => [i.status, i.subtotal, i.discount, i.amount, i.amount_due, i.amount_paid])).toEqual([
        ['PAID', 10000, 2500, 7500, 7500, 7500],
        ['PAID', 10000, 2500, 7500, 7500, 7500],
        ['PAID', 10000, 2500, 7500, 7500, 7500],
        ['PAID', 10000, 0, 10000, 10000, 10000],
        ['PAID', 10000, 0, 10000, 10000, 10000],
      ]);
      expect(invoices.map(linesOf)).toEqual([
        [
          ['SUBSCRIPTION', 10000],
          ['DISCOUNT', -2500],
        ],
        [
          ['SUBSCRIPTION', 10000],
          ['DISCOUNT', -2500],
        ],
        [
          ['SUBSCRIPTION', 10000],
          ['DISCOUNT', -2500],
        ],
        [['SUBSCRIPTION', 10000]],
        [['SUBSCRIPTION', 10000]],
      ]);
      expect(invoices[0].lines[1].description).toBe('QUARTER (25% off)');
      expect(await chargesOf(email)).toEqual([
        [750000, 'success'],
        [750000, 'success'],
        [750000, 'success'],
        [1000000, 'success'],
        [1000000, 'success'],
      ]);
    });

    it('25% REPEATING 3 applied to an existing subscription: the next 3 renewals are 7,500, then 10,000', async () => {
      const m = await registerMerchant(api, 'repeat-apply');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      await coupon(m, { code: 'QUARTER', percent_off: 25, duration: 'REPEATING', duration_in_periods: 3 });
      const { customerId, email } = await customerWithCard(m, 'repeat-apply');
      const created = await post(m, '/subscriptions', { customer_id: customerId, plan_id: planId });
      expect([created.status, created.body.discount]).toEqual([201, null]);
      const id = created.body.id;

      const applied = await post(m, `/subscriptions/${id}/discount`, { coupon_code: 'QUARTER' });
      expect(applied.status).toBe(200);
      expect(applied.body.discount).toMatchObject({ code: 'QUARTER', ends_after_periods_remaining: 3 });
      expect((await get(m, `/subscriptions/${id}`)).body).toEqual(applied.body);
      for (const remaining of [2, 1, null, null]) {
        const after = await renew(m, id);
        expect(after.discount?.ends_after_periods_remaining ?? null).toBe(remaining);
      }

      const invoices = await invoicesOf(m, id);
      expect(invoices.map((i) => i.amount)).toEqual([10000, 7500, 7500, 7500, 10000]);
      expect(invoices.map((i) => i.status)).toEqual(['PAID', 'PAID', 'PAID', 'PAID', 'PAID']);
      expect(await chargesOf(email)).toEqual([
        [1000000, 'success'],
        [750000, 'success'],
        [750000, 'success'],
        [750000, 'success'],
        [1000000, 'success'],
      ]);
    });

    it('replacing and removing a discount: DELETE answers the subscription without one, the next renewal is full price', async () => {
      const m = await registerMerchant(api, 'remove');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      await coupon(m, { code: 'HALF', percent_off: 50, duration: 'FOREVER' });
      const tenth = await coupon(m, { code: 'TENTH', percent_off: 10, duration: 'FOREVER' });
      const { customerId } = await customerWithCard(m, 'remove');
      const { body: sub } = await post(m, '/subscriptions', {
        customer_id: customerId,
        plan_id: planId,
        coupon_code: 'HALF',
      });
      expect(sub.discount).toMatchObject({ code: 'HALF', ends_after_periods_remaining: null });
      const replaced = await post(m, `/subscriptions/${sub.id}/discount`, { coupon_code: 'TENTH' });
      expect(replaced.body.discount).toMatchObject({ coupon_id: tenth.id, code: 'TENTH', percent_off: 10 });
      await renew(m, sub.id);
      const removed = await del(m, `/subscriptions/${sub.id}/discount`);
      expect([removed.status, removed.body.discount]).toEqual([200, null]);
      expect((await del(m, `/subscriptions/${sub.id}/discount`)).status).toBe(200);
      await renew(m, sub.id);
      expect((await invoicesOf(m, sub.id)).map((i) => i.amount)).toEqual([5000, 9000, 10000]);
      expect(await timesRedeemed(m, tenth.id)).toBe(1);

      expect((await post(m, `/subscriptions/${sub.id}/cancel`, {})).status).toBe(200);
      const refused = await post(m, `/subscriptions/${sub.id}/discount`, { coupon_code: 'TENTH' });
      expect([refused.status, refused.body]).toEqual([
        400,
        { detail: 'A cancelled subscription cannot take a discount' },
      ]);
      expect(await timesRedeemed(m, tenth.id)).toBe(1);
      expect((await post(m, `/subscriptions/${randomUUID()}/discount`, { coupon_code: 'TENTH' })).status).toBe(404);
      expect((await post(m, `/subscriptions/${sub.id}/discount`, {})).status).toBe(422);
    });

    it('with a trial the discount starts with the first invoice after the trial', async () => {
      const m = await registerMerchant(api, 'trial');
      const planId = await plan(m, { name: 'Monthly', amount: 10000, trial_period_days: 7 });
      await coupon(m, { code: 'FIRSTPAID', percent_off: 40, duration: 'ONCE' });
      const { customerId, email } = await customerWithCard(m, 'trial');
      const created = await post(m, '/subscriptions', {
        customer_id: customerId,
        plan_id: planId,
        coupon_code: 'FIRSTPAID',
      });
      expect(created.body).toMatchObject({ status: 'TRIALING', discount: { ends_after_periods_remaining: 1 } });
      const afterTrial = await renew(m, created.body.id);
      expect(afterTrial).toMatchObject({ status: 'ACTIVE', discount: null });
      await renew(m, created.body.id);
      expect((await invoicesOf(m, created.body.id)).map((i) => i.amount)).toEqual([6000, 10000]);
      expect(await chargesOf(email)).toEqual([
        [600000, 'success'],
        [1000000, 'success'],
      ]);
    });

    it('amount_off larger than the invoice: amount_due 0, PAID, and no provider call', async () => {
      const m = await registerMerchant(api, 'free');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      await coupon(m, { code: 'BIGGIFT', amount_off: 25000, currency: 'NGN', duration: 'ONCE' });
      const { customerId, email } = await customerWithCard(m, 'free');
      const created = await post(m, '/subscriptions', {
        customer_id: customerId,
        plan_id: planId,
        coupon_code: 'BIGGIFT',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'ACTIVE', discount: null });
      const [first] = await invoicesOf(m, created.body.id);
      expect(first).toMatchObject({
        status: 'PAID',
        subtotal: 10000,
        discount: 10000,
        amount: 0,
        amount_due: 0,
        amount_paid: 0,
      });
      expect(linesOf(first)).toEqual([
        ['SUBSCRIPTION', 10000],
        ['DISCOUNT', -10000],
      ]);
      expect(await chargesOf(email)).toEqual([]);
      // The customer's detail view shows the discount with the invoice.
      const detail = await get(m, `/customers/${customerId}`);
      expect(detail.body.invoices).toEqual([
        expect.objectContaining({ id: first.id, amount: 0, discount: 10000, credit_applied: 0, amount_due: 0 }),
      ]);
      await renew(m, created.body.id);
      expect(await chargesOf(email)).toEqual([[1000000, 'success']]);
    });
  });

  describe('checkout with a coupon', () => {
    it('charges the discounted price; the first invoice carries the DISCOUNT line; the page shows all three prices', async () => {
      const m = await registerMerchant(api, 'checkout-coupon');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const quarter = await coupon(m, {
        code: 'QUARTER',
        percent_off: 25,
        duration: 'REPEATING',
        duration_in_periods: 3,
      });
      const session = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'quarter' });
      expect(session.status).toBe(201);
      expect(session.body).toMatchObject({
        coupon_code: 'QUARTER',
        allow_promotion_codes: false,
        amount_subtotal: 10000,
        amount_discount: 2500,
        amount_total: 7500,
        currency: 'NGN',
      });
      expect(await timesRedeemed(m, quarter.id)).toBe(1);
      const page = await (await fetch(`${platform.gatewayUrl}/checkout/${session.body.code}`)).text();
      expect(page).toMatch(/original-price">NGN[\s\u00a0]10,000\.00/);
      expect(page).toMatch(/discount">&minus;NGN[\s\u00a0]2,500\.00/);
      expect(page).toMatch(/total">NGN[\s\u00a0]7,500\.00/);

      const email = `checkout-coupon-${randomUUID().slice(0, 8)}@example.com`;
      await payCheckoutPageInSandbox(platform.gatewayUrl, session.body.code, email);
      const done = (await get(m, `/checkout/sessions/${session.body.code}`)).body;
      expect(done.status).toBe('COMPLETED');
      const paid = (await sandbox.ledger({ email })).transactions.filter((t) => t.status === 'success');
      expect(paid.map((t) => t.amount)).toEqual([750000]);
      const sub = (await get(m, `/subscriptions/${done.subscription_id}`)).body;
      expect(sub.discount).toMatchObject({ code: 'QUARTER', ends_after_periods_remaining: 2 });
      const [first] = await invoicesOf(m, done.subscription_id);
      expect(first).toMatchObject({ status: 'PAID', subtotal: 10000, discount: 2500, amount: 7500, amount_paid: 7500 });
      expect(linesOf(first)).toEqual([
        ['SUBSCRIPTION', 10000],
        ['DISCOUNT', -2500],
      ]);
      expect(await timesRedeemed(m, quarter.id)).toBe(1);
      expect(await renew(m, done.subscription_id)).toMatchObject({ discount: { ends_after_periods_remaining: 1 } });
      expect((await invoicesOf(m, done.subscription_id)).map((i) => i.amount)).toEqual([7500, 7500]);
    });

    it('a discount that leaves nothing to pay: the card is only checked (and refunded), the first invoice is PAID at 0', async () => {
      const m = await registerMerchant(api, 'checkout-free');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      await coupon(m, { code: 'ONUS', percent_off: 100, duration: 'ONCE' });
      const session = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'ONUS' });
      expect(session.body).toMatchObject({ amount_discount: 10000, amount_total: 0 });
      const email = `checkout-free-${randomUUID().slice(0, 8)}@example.com`;
      await payCheckoutPageInSandbox(platform.gatewayUrl, session.body.code, email);
      const done = (await get(m, `/checkout/sessions/${session.body.code}`)).body;
      expect(done.status).toBe('COMPLETED');
      const ledger = await sandbox.ledger({ email });
      const check = ledger.transactions.filter((t) => t.status === 'success');
      expect(check.map((t) => t.amount)).toEqual([100]);
      expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount])).toEqual([[check[0].reference, 100]]);
      const [first] = await invoicesOf(m, done.subscription_id);
      expect(first).toMatchObject({ status: 'PAID', amount: 0, amount_due: 0, amount_paid: 0 });
      expect(linesOf(first)).toEqual([
        ['SUBSCRIPTION', 10000],
        ['DISCOUNT', -10000],
      ]);
      await renew(m, done.subscription_id);
      expect(await chargesOf(email)).toEqual([[1000000, 'success']]);
    });

    it('gives the redemption back when the session expires or is cancelled unpaid; refuses bad input', async () => {
      const m = await registerMerchant(api, 'checkout-release');
      const planId = await plan(m, { name: 'Monthly', amount: 10000 });
      const one = await coupon(m, { code: 'SOLO', percent_off: 10, duration: 'ONCE', max_redemptions: 1 });
      const first = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'SOLO' });
      expect(first.status).toBe(201);
      expect(await timesRedeemed(m, one.id)).toBe(1);
      const taken = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'SOLO' });
      expect([taken.status, taken.body]).toEqual([
        400,
        { detail: 'The coupon SOLO has been redeemed the maximum number of times (1)' },
      ]);
      expect((await post(m, `/checkout/sessions/${first.body.code}/expire`)).status).toBe(200);
      expect(await timesRedeemed(m, one.id)).toBe(0);

      const second = await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'SOLO' });
      expect(second.status).toBe(201);
      expect(await timesRedeemed(m, one.id)).toBe(1);
      const cancel = await fetch(`${platform.gatewayUrl}/checkout/${second.body.code}/cancel`, {
        method: 'POST',
        redirect: 'manual',
      });
      expect(cancel.status).toBeLessThan(400);
      expect((await get(m, `/checkout/sessions/${second.body.code}`)).body.status).toBe('CANCELLED');
      expect(await timesRedeemed(m, one.id)).toBe(0);

      // Expired by the clock (the sweep) too.
      const third = await post(m, '/checkout/sessions', {
        plan_id: planId,
        coupon_code: 'SOLO',
        expires_in_minutes: 5,
      });
      expect(await timesRedeemed(m, one.id)).toBe(1);
      const later = new Date(Date.parse(third.body.expires_at) + 60_000).toISOString();
      expect((await post(m, '/test-clock/advance', { to: later })).status).toBe(200);
      expect((await get(m, `/checkout/sessions/${third.body.code}`)).body.status).toBe('EXPIRED');
      expect(await timesRedeemed(m, one.id)).toBe(0);

      const both = await post(m, '/checkout/sessions', {
        plan_id: planId,
        coupon_code: 'SOLO',
        allow_promotion_codes: true,
      });
      expect(both.status).toBe(422);
      expect((await post(m, '/checkout/sessions', { plan_id: planId, coupon_code: 'a b' })).status).toBe(422);
    });
  });
});
