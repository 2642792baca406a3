import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, uniqueEmail, type Api } from './support/api';

interface Merchant {
  token: string;
  testKey: string;
  liveKey: string;
}

describe('plans (gateway -> catalog over gRPC -> PostgreSQL)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: Merchant;
  let other: Merchant;

  async function register(): Promise<Merchant> {
    const res = await api('POST', '/api/v1/auth/register', {
      body: { email: uniqueEmail('plans'), business_name: 'Plans Ltd', password: 'password123' },
    });
    expect(res.status).toBe(201);
    return { token: res.body.access_token, testKey: res.body.api_keys[0].key, liveKey: res.body.api_keys[1].key };
  }

  const createPlan = (apiKey: string, body: Record<string, unknown>) => api('POST', '/api/v1/plans', { apiKey, body });

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([register(), register()]);
  });
  afterAll(() => platform?.stop());

  it('creates a plan with the seed defaults and exact major-unit money', async () => {
    const res = await createPlan(acme.testKey, { name: 'Pro', amount: 5000.5 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Pro',
      amount: 5000.5,
      currency: 'NGN',
      interval: 'monthly',
      interval_count: 1,
      trial_period_days: 0,
      usage_unit_amount: null,
      is_active: true,
      livemode: false,
      metadata: {},
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    const [row] = await import('@billing/testing').then((t) =>
      t.queryDatabase<{ amount: string }>(platform.database('catalog'), 'SELECT amount FROM plans WHERE id = $1', [
        res.body.id,
      ]),
    );
    expect(row.amount).toBe('500050');
  });

  it('accepts intervals in any case, `yearly` as annually, and usage pricing', async () => {
    const res = await createPlan(acme.testKey, {
      name: 'Metered',
      amount: 0,
      currency: 'usd',
      interval: 'YEARLY',
      interval_count: 2,
      trial_period_days: 14,
      usage_unit_amount: 0.25,
      metadata: { tier: 'gold' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      currency: 'USD',
      interval: 'annually',
      interval_count: 2,
      trial_period_days: 14,
      usage_unit_amount: 0.25,
      metadata: { tier: 'gold' },
    });
  });

  it('answers 422 in the documented shape for every invalid field', async () => {
    const res = await createPlan(acme.testKey, {
      amount: 10.001,
      currency: 'EUR',
      interval: 'fortnightly',
      interval_count: 53,
      trial_period_days: 731,
    });
    expect(res.status).toBe(422);
    const byField = Object.fromEntries(res.body.detail.map((d: { loc: string[] }) => [d.loc[1], d]));
    expect(Object.keys(byField).sort()).toEqual(
      ['amount', 'currency', 'interval', 'interval_count', 'name', 'trial_period_days'].sort(),
    );
    expect(byField.name).toMatchObject({ loc: ['body', 'name'], type: 'missing', msg: 'Field required' });
    expect(byField.interval_count).toMatchObject({ type: 'less_than_equal', ctx: { le: 52 }, input: 53 });
    for (const item of res.body.detail) {
      expect(typeof item.msg).toBe('string');
      expect(typeof item.type).toBe('string');
    }
    const negative = await createPlan(acme.testKey, { name: 'X', amount: -1 });
    expect(negative.status).toBe(422);
    expect(negative.body.detail[0]).toMatchObject({ loc: ['body', 'amount'], type: 'greater_than_equal' });
    const tooMuchMetadata = await createPlan(acme.testKey, {
      name: 'X',
      amount: 1,
      metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
    });
    expect(tooMuchMetadata.status).toBe(422);
    expect(tooMuchMetadata.body.detail[0].loc).toEqual(['body', 'metadata']);
  });

  it("gets a plan; unknown or malformed id -> 404; another merchant's plan -> 403", async () => {
    const created = await createPlan(acme.testKey, { name: 'Basic', amount: 100 });
    const got = await api('GET', `/api/v1/plans/${created.body.id}`, { apiKey: acme.testKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    expect(
      (await api('GET', '/api/v1/plans/00000000-0000-4000-8000-000000000000', { apiKey: acme.testKey })).status,
    ).toBe(404);
    const malformed = await api('GET', '/api/v1/plans/not-a-uuid', { apiKey: acme.testKey });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ detail: expect.any(String) });
    const foreign = await api('GET', `/api/v1/plans/${created.body.id}`, { apiKey: other.testKey });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toEqual(expect.any(String));
    expect((await api('GET', `/api/v1/plans/${created.body.id}`, {})).status).toBe(401);
  });

  it('keeps test and live mode apart: a test plan is invisible to the live key', async () => {
    const testPlan = await createPlan(acme.testKey, { name: 'Test only', amount: 1 });
    const livePlan = await createPlan(acme.liveKey, { name: 'Live only', amount: 2 });
    expect(livePlan.body.livemode).toBe(true);
    expect((await api('GET', `/api/v1/plans/${testPlan.body.id}`, { apiKey: acme.liveKey })).status).toBe(404);
    expect((await api('GET', `/api/v1/plans/${livePlan.body.id}`, { apiKey: acme.testKey })).status).toBe(404);
    const liveList = await api('GET', '/api/v1/plans?limit=100', { apiKey: acme.liveKey });
    expect(liveList.body.map((p: { id: string }) => p.id)).toEqual([livePlan.body.id]);
    const testList = await api('GET', '/api/v1/plans?limit=100', { apiKey: acme.testKey });
    expect(testList.body.map((p: { id: string }) => p.id)).toContain(testPlan.body.id);
    expect(testList.body.every((p: { livemode: boolean }) => p.livemode === false)).toBe(true);
    expect(
      (await api('PATCH', `/api/v1/plans/${testPlan.body.id}`, { apiKey: acme.liveKey, body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await api('DELETE', `/api/v1/plans/${testPlan.body.id}`, { apiKey: acme.liveKey })).status).toBe(404);
  });

  it('pages newest first with limit and starting_after; an unknown cursor is 400', async () => {
    const m = await register();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createPlan(m.testKey, { name: `P${i}`, amount: i })).body.id);
    const first = await api('GET', '/api/v1/plans?limit=2', { apiKey: m.testKey });
    expect(first.body.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    const second = await api('GET', `/api/v1/plans?limit=2&starting_after=${ids[3]}`, { apiKey: m.testKey });
    expect(second.body.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const last = await api('GET', `/api/v1/plans?limit=2&starting_after=${ids[0]}`, { apiKey: m.testKey });
    expect(last.body).toEqual([]);
    const defaultPage = await api('GET', '/api/v1/plans', { apiKey: m.testKey });
    expect(defaultPage.body).toHaveLength(5);
    const unknown = await api('GET', '/api/v1/plans?starting_after=00000000-0000-4000-8000-000000000000', {
      apiKey: m.testKey,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ detail: expect.any(String) });
    expect((await api('GET', '/api/v1/plans?limit=0', { apiKey: m.testKey })).status).toBe(422);
    expect((await api('GET', '/api/v1/plans?limit=101', { apiKey: m.testKey })).status).toBe(422);

    await api('DELETE', `/api/v1/plans/${ids[1]}`, { apiKey: m.testKey });
    const inactive = await api('GET', '/api/v1/plans?is_active=false', { apiKey: m.testKey });
    expect(inactive.body.map((p: { id: string }) => p.id)).toEqual([ids[1]]);
    const active = await api('GET', '/api/v1/plans?is_active=true', { apiKey: m.testKey });
    expect(active.body).toHaveLength(4);
  });

  it('updates name/metadata, refuses price changes with 400, and deactivates on DELETE', async () => {
    const plan = (await createPlan(acme.testKey, { name: 'Old', amount: 10 })).body;
    const renamed = await api('PATCH', `/api/v1/plans/${plan.id}`, {
      apiKey: acme.testKey,
      body: { name: 'New', metadata: { a: 1 }, unknown_field: 'ignored' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'New', metadata: { a: 1 }, amount: 10 });
    for (const field of [
      'amount',
      'currency',
      'interval',
      'interval_count',
      'trial_period_days',
      'usage_unit_amount',
    ]) {
      const res = await api('PATCH', `/api/v1/plans/${plan.id}`, { apiKey: acme.testKey, body: { [field]: 1 } });
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain(field);
    }
    const deleted = await api('DELETE', `/api/v1/plans/${plan.id}`, { apiKey: acme.testKey });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const after = await api('GET', `/api/v1/plans/${plan.id}`, { apiKey: acme.testKey });
    expect(after.body).toMatchObject({ is_active: false, amount: 10, name: 'New' });
  });

  it('documents the plan routes in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/plans']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/plans/{plan_id}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(doc.components.schemas.Plan.properties.amount).toBeDefined();
  });
});
