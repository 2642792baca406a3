import { randomUUID } from 'node:crypto';
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

/**
 * Metered usage (docs/api-behaviour.md §9) through the real platform: subscriptions are made by paid
 * hosted checkouts on the sandbox provider, usage goes through the gateway over HTTP.
 */
describe('usage: records, idempotency, batch, history, summary', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let stranger: RegisteredMerchant;
  let meteredPlanId: string;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'usage');
    stranger = await registerMerchant(api, 'usage-stranger');
    meteredPlanId = await createPlan(merchant, 2.5);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  async function createPlan(owner: RegisteredMerchant, usageUnitAmount: number | null): Promise<string> {
    const res = await api('POST', '/api/v1/plans', {
      apiKey: owner.testKey,
      body: { name: 'Metered', amount: 1000, usage_unit_amount: usageUnitAmount },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** A paid hosted checkout: session, pay on the sandbox page, provider callback -> subscription id. */
  async function subscribe(owner: RegisteredMerchant, planId: string): Promise<string> {
    return (await payHostedCheckout(api, platform.gatewayUrl, owner.testKey, planId)).subscriptionId;
  }

  const record = (subscriptionId: string, body: Json, key = merchant.testKey) =>
    api('POST', `/api/v1/subscriptions/${subscriptionId}/usage`, { apiKey: key, body });
  const history = (subscriptionId: string, query = '', key = merchant.testKey) =>
    api('GET', `/api/v1/subscriptions/${subscriptionId}/usage/history${query}`, { apiKey: key });
  const summary = (subscriptionId: string, key = merchant.testKey) =>
    api('GET', `/api/v1/subscriptions/${subscriptionId}/usage/summary`, { apiKey: key });
  const batch = (records: Json[], key = merchant.testKey) =>
    api('POST', '/api/v1/usage/batch', { apiKey: key, body: { records } });
  const billingDb = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    queryDatabase<R>(platform.database('billing'), sql, params);

  it('sums "0.1" + 0.2 to exactly "0.3" and prices it once (summary of the current period)', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    expect((await record(subscriptionId, { quantity: '0.1' })).status).toBe(201);
    expect((await record(subscriptionId, { quantity: 0.2 })).status).toBe(201);
    const res = await summary(subscriptionId);
    expect(res.status).toBe(200);
    const [period] = await billingDb<{ start: Date; end: Date }>(
      'SELECT current_period_start AS start, current_period_end AS end FROM subscriptions WHERE id = $1',
      [subscriptionId],
    );
    expect(res.body).toEqual({
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
      unbilled_quantity: '0.3',
      unit_amount: 2.5,
      estimated_amount: 0.75,
      currency: 'NGN',
    });
  });

  it('records a usage record with its fields; quantities come back canonical', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const at = '2026-01-15T10:00:00.000Z';
    const first = await record(subscriptionId, { quantity: '1.500000', description: 'API calls', timestamp: at });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(UUID),
      subscription_id: subscriptionId,
      quantity: '1.5',
      description: 'API calls',
      idempotency_key: null,
      billed: false,
      billed_at: null,
      invoice_id: null,
      timestamp: at,
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
    });
    const noTimestamp = await record(subscriptionId, { quantity: 1 });
    expect(noTimestamp.body.timestamp).toMatch(ISO_UTC);
    expect(Math.abs(Date.parse(noTimestamp.body.timestamp) - Date.now())).toBeLessThan(60_000);

    const cases: [Json, string][] = [
      ['3', '3'],
      [3, '3'],
      ['-0.25', '-0.25'],
      ['0010.0', '10'],
      [0.000001, '0.000001'],
      ['-0', '0'],
      [12.5, '12.5'],
    ];
    for (const [quantity, canonical] of cases) {
      const res = await record(subscriptionId, { quantity });
      expect([quantity, res.status, res.body.quantity]).toEqual([quantity, 201, canonical]);
    }
    // The largest quantity is valid text, taken by a plan that is not metered; on this one it
    // would bill more than one record may (docs/api-behaviour.md §9).
    const largest = '999999999999999999.999999';
    const tooMuch = await record(subscriptionId, { quantity: largest });
    expect([tooMuch.status, tooMuch.body.detail?.[0]?.loc]).toEqual([422, ['body', 'quantity']]);
    const flat = await subscribe(merchant, await createPlan(merchant, null));
    const kept = await record(flat, { quantity: largest });
    expect([kept.status, kept.body.quantity]).toEqual([201, largest]);
  });

  it('a repeated idempotency key answers 200 with the first record; the history holds one', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const first = await record(subscriptionId, { quantity: '2', idempotency_key: 'evt-1' });
    expect(first.status).toBe(201);
    const again = await record(subscriptionId, { quantity: '7', idempotency_key: 'evt-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // Concurrent repeats of a new key also end with one record.
    const racing = await Promise.all(
      Array.from({ length: 8 }, () => record(subscriptionId, { quantity: '1', idempotency_key: 'evt-2' })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(racing.map((r) => r.body.id)).size).toBe(1);

    const list = await history(subscriptionId);
    expect(list.status).toBe(200);
    expect(list.body.map((r: Json) => [r.idempotency_key, r.quantity])).toEqual([
      ['evt-2', '1'],
      ['evt-1', '2'],
    ]);
    expect((await summary(subscriptionId)).body.unbilled_quantity).toBe('3');
  });

  it('negative quantities correct earlier usage', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    await record(subscriptionId, { quantity: '10.75' });
    const correction = await record(subscriptionId, { quantity: -0.75, description: 'correction' });
    expect(correction.status).toBe(201);
    expect(correction.body.quantity).toBe('-0.75');
    const res = await summary(subscriptionId);
    expect([res.body.unbilled_quantity, res.body.estimated_amount]).toEqual(['10', 25]);
  });

  it('422 for a quantity that is not a valid decimal (loc body.quantity), nothing stored', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    for (const quantity of ['abc', '1.1234567', '1e19', '1000000000000000000', '', '1,5', true, null, { n: 1 }]) {
      const res = await record(subscriptionId, { quantity });
      expect([quantity, res.status]).toEqual([quantity, 422]);
      expect(res.body.detail[0].loc).toEqual(['body', 'quantity']);
    }
    const missing = await record(subscriptionId, { description: 'no quantity' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'quantity'], type: 'missing' });
    expect((await history(subscriptionId)).body).toEqual([]);
  });

  it('400 on a cancelled subscription (single record and batch)', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    expect((await record(subscriptionId, { quantity: '1' })).status).toBe(201);
    const cancelled = await api('POST', `/api/v1/subscriptions/${subscriptionId}/cancel`, {
      apiKey: merchant.testKey,
      body: {},
    });
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'CANCELLED']);
    const res = await record(subscriptionId, { quantity: '1' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/CANCELLED/);
    const inBatch = await batch([{ subscription_id: subscriptionId, quantity: '1', idempotency_key: 'late' }]);
    expect(inBatch.body).toEqual({
      accepted: 0,
      duplicates: 0,
      errors: [{ index: 0, detail: expect.stringMatching(/CANCELLED/) }],
    });
    // No route expires a subscription (a fixed term ends at a renewal): set through the database.
    await billingDb(`UPDATE subscriptions SET status = 'EXPIRED' WHERE id = $1`, [subscriptionId]);
    expect((await record(subscriptionId, { quantity: '1' })).status).toBe(400);
    expect((await history(subscriptionId)).body).toHaveLength(1);
  });

  it('404 unknown or malformed id or the other mode, 403 another project, on every usage route', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const unknown = randomUUID();
    for (const [id, key, status] of [
      [unknown, merchant.testKey, 404],
      ['not-an-id', merchant.testKey, 404],
      [subscriptionId, merchant.liveKey, 404],
      [subscriptionId, stranger.testKey, 403],
    ] as const) {
      expect([id, (await record(id, { quantity: '1' }, key)).status]).toEqual([id, status]);
      expect([id, (await history(id, '', key)).status]).toEqual([id, status]);
      expect([id, (await summary(id, key)).status]).toEqual([id, status]);
    }
    expect((await history(subscriptionId)).body).toEqual([]);
  });

  it('batch: accepted, duplicates and per-record errors by index, without failing the others', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const foreignId = await subscribe(stranger, await createPlan(stranger, 1));
    await record(subscriptionId, { quantity: '1', idempotency_key: 'k-0' });

    const res = await batch([
      { subscription_id: subscriptionId, quantity: '0.1', idempotency_key: 'k-1' },
      { subscription_id: subscriptionId, quantity: 5, idempotency_key: 'k-0' }, // used before
      { subscription_id: randomUUID(), quantity: '1', idempotency_key: 'k-2' }, // unknown
      { subscription_id: subscriptionId, quantity: 'lots', idempotency_key: 'k-3' }, // bad quantity
      { subscription_id: foreignId, quantity: '1', idempotency_key: 'k-4' }, // other project
      { subscription_id: subscriptionId, quantity: '0.2', idempotency_key: 'k-5', description: 'd' },
      { subscription_id: subscriptionId, quantity: '9', idempotency_key: 'k-5' }, // repeated in the batch
      { subscription_id: 'nope', quantity: '1', idempotency_key: 'k-6' }, // malformed id
      { subscription_id: subscriptionId, quantity: '1.0000001', idempotency_key: 'k-7' }, // 7 decimals
      { subscription_id: subscriptionId, quantity: '-0.3', timestamp: '2026-01-02T00:00:00.000Z' }, // no key
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accepted: 3,
      duplicates: 2,
      errors: [
        { index: 2, detail: 'Subscription not found' },
        { index: 3, detail: expect.stringMatching(/quantity/) },
        { index: 4, detail: 'Subscription belongs to another project' },
        { index: 7, detail: 'Subscription not found' },
        { index: 8, detail: expect.stringMatching(/quantity/) },
      ],
    });
    // 1 (single) + 0.1 + 0.2 - 0.3
    expect((await summary(subscriptionId)).body.unbilled_quantity).toBe('1');
    expect((await history(subscriptionId)).body).toHaveLength(4);
    expect((await history(foreignId, '', stranger.testKey)).body).toEqual([]);

    // The same batch again: everything with a key is a duplicate now.
    const replay = await batch([
      { subscription_id: subscriptionId, quantity: '0.1', idempotency_key: 'k-1' },
      { subscription_id: subscriptionId, quantity: '0.2', idempotency_key: 'k-5' },
    ]);
    expect(replay.body).toEqual({ accepted: 0, duplicates: 2, errors: [] });
  });

  it('batch: more than 1000 records is a 422; 1000 is fine; the live key sees none of it', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const records = Array.from({ length: 1001 }, (_, i) => ({
      subscription_id: subscriptionId,
      quantity: '0.001',
      idempotency_key: `bulk-${i}`,
    }));
    expect((await batch(records)).status).toBe(422);
    const full = await batch(records.slice(0, 1000));
    expect(full.body).toEqual({ accepted: 1000, duplicates: 0, errors: [] });
    expect((await summary(subscriptionId)).body.unbilled_quantity).toBe('1');
    const live = await batch(records.slice(0, 2), merchant.liveKey);
    expect(live.body.errors).toEqual([
      { index: 0, detail: 'Subscription not found' },
      { index: 1, detail: 'Subscription not found' },
    ]);
  });

  it('history: newest first, paging with starting_after (unknown -> 400), billed filter', async () => {
    const subscriptionId = await subscribe(merchant, meteredPlanId);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await record(subscriptionId, { quantity: String(i) })).body.id);
    const newestFirst = [...ids].reverse();

    const page1 = await history(subscriptionId, '?limit=2');
    expect(page1.body.map((r: Json) => r.id)).toEqual(newestFirst.slice(0, 2));
    const page2 = await history(subscriptionId, `?limit=2&starting_after=${page1.body[1].id}`);
    expect(page2.body.map((r: Json) => r.id)).toEqual(newestFirst.slice(2, 4));
    const page3 = await history(subscriptionId, `?limit=2&starting_after=${page2.body[1].id}`);
    expect(page3.body.map((r: Json) => r.id)).toEqual(newestFirst.slice(4));
    expect((await history(subscriptionId, `?starting_after=${randomUUID()}`)).status).toBe(400);
    expect((await history(subscriptionId, '?limit=0')).status).toBe(422);
    expect((await history(subscriptionId, '?billed=maybe')).status).toBe(422);

    // Two records billed on the subscription's first invoice (as a renewal would mark them).
    await billingDb(
      `UPDATE usage_records SET billed = true, billed_at = now(),
         invoice_id = (SELECT id FROM invoices WHERE subscription_id = $1 LIMIT 1)
       WHERE id = ANY($2::uuid[])`,
      [subscriptionId, [ids[0], ids[2]]],
    );
    const billed = await history(subscriptionId, '?billed=true');
    expect(billed.body.map((r: Json) => r.id)).toEqual([ids[2], ids[0]]);
    expect(billed.body.every((r: Json) => r.billed && UUID.test(r.invoice_id) && ISO_UTC.test(r.billed_at))).toBe(true);
    const unbilled = await history(subscriptionId, '?billed=false');
    expect(unbilled.body.map((r: Json) => r.id)).toEqual([ids[4], ids[3], ids[1]]);
    expect((await summary(subscriptionId)).body.unbilled_quantity).toBe('11'); // 2 + 4 + 5
  });

  it('a plan without usage pricing: summary has unit_amount null and estimated_amount 0', async () => {
    const subscriptionId = await subscribe(merchant, await createPlan(merchant, null));
    await record(subscriptionId, { quantity: '4' });
    const res = await summary(subscriptionId);
    expect(res.body).toMatchObject({ unbilled_quantity: '4', unit_amount: null, estimated_amount: 0 });
  });

  it('a renewal (test clock) bills the ended period on ONE usage line and marks exactly those records', async () => {
    // Its own project: advancing the test clock moves that project's time only.
    const owner = await registerMerchant(api, 'usage-renewal');
    const subscriptionId = await subscribe(owner, await createPlan(owner, 2.5));
    const before = (await summary(subscriptionId, owner.testKey)).body;
    await record(subscriptionId, { quantity: '0.1' }, owner.testKey);
    await record(subscriptionId, { quantity: '0.2' }, owner.testKey);
    await record(subscriptionId, { quantity: '10' }, owner.testKey);
    // Belongs to the next period: stays unbilled.
    const later = new Date(Date.parse(before.period_end) + 3_600_000).toISOString();
    await record(subscriptionId, { quantity: '7', timestamp: later }, owner.testKey);

    const advanced = await api('POST', '/api/v1/test-clock/advance', {
      apiKey: owner.testKey,
      body: { to: new Date(Date.parse(before.period_end) + 60_000).toISOString() },
    });
    expect(advanced.status).toBe(200);
    let billed: Json[] = [];
    for (let i = 0; i < 100 && billed.length < 3; i++) {
      billed = (await history(subscriptionId, '?billed=true', owner.testKey)).body;
      if (billed.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    expect(billed.map((r: Json) => r.quantity).sort()).toEqual(['0.1', '0.2', '10']);
    const invoiceIds = new Set(billed.map((r: Json) => r.invoice_id));
    expect(invoiceIds.size).toBe(1);
    const unbilled = (await history(subscriptionId, '?billed=false', owner.testKey)).body;
    expect(unbilled.map((r: Json) => r.quantity)).toEqual(['7']);

    const lines = await billingDb<{
      type: string;
      quantity: string;
      unit_amount: string;
      amount: string;
      period_end: Date;
    }>(
      `SELECT type, quantity::text, unit_amount::text, amount::text, period_end FROM invoice_lines
       WHERE invoice_id = $1 AND type = 'USAGE'`,
      [[...invoiceIds][0]],
    );
    // 10.3 units x 250 minor = 2575 minor, on the ended period.
    expect(lines).toEqual([
      {
        type: 'USAGE',
        quantity: '10.3',
        unit_amount: '250',
        amount: '2575',
        period_end: new Date(before.period_end),
      },
    ]);
    const after = (await summary(subscriptionId, owner.testKey)).body;
    expect(after.period_start).toBe(before.period_end);
    expect([after.unbilled_quantity, after.estimated_amount]).toEqual(['7', 17.5]);
  });
});
