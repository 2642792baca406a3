import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, ISO_UTC, registerMerchant, UUID, type Api, type RegisteredMerchant } from './support/api';

const PATH = '/api/v1/cancellation-policies';
const DAY_MS = 24 * 60 * 60 * 1000;

describe('cancellation policies (gateway -> policy over gRPC -> PostgreSQL)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: RegisteredMerchant;
  let other: RegisteredMerchant;

  /** Both credentials of one merchant, test mode unless told. */
  const as = (m: RegisteredMerchant, mode: 'test' | 'live' = 'test') => ({
    apiKey: mode === 'test' ? m.testKey : m.liveKey,
    token: m.token,
  });
  const create = (m: RegisteredMerchant, body: Record<string, unknown>, mode: 'test' | 'live' = 'test') =>
    api('POST', PATH, { ...as(m, mode), body });
  const list = async (m: RegisteredMerchant, mode: 'test' | 'live' = 'test') => {
    const res = await api('GET', `${PATH}?limit=100`, as(m, mode));
    expect(res.status).toBe(200);
    return res.body as { id: string; is_default: boolean; livemode: boolean }[];
  };

  beforeAll(async () => {
    // Every process: the test-clock route moves billing's clock and then policy's copy.
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([registerMerchant(api, 'policies'), registerMerchant(api, 'other')]);
  });
  afterAll(() => platform?.stop());

  it('takes the API key and the JWT of the same merchant on every route', async () => {
    const policy = (await create(acme, { name: 'Mine', refund_type: 'FULL' })).body;
    const routes: [string, string, unknown?][] = [
      ['POST', PATH, { name: 'X', refund_type: 'FULL' }],
      ['GET', PATH],
      ['GET', `${PATH}/${policy.id}`],
      ['PATCH', `${PATH}/${policy.id}`, { name: 'Y' }],
      ['DELETE', `${PATH}/${policy.id}`],
    ];
    for (const [method, path, body] of routes) {
      const keyOnly = await api(method, path, { apiKey: acme.testKey, body });
      const tokenOnly = await api(method, path, { token: acme.token, body });
      const foreignKey = await api(method, path, { apiKey: other.testKey, token: acme.token, body });
      const foreignToken = await api(method, path, { apiKey: acme.testKey, token: other.token, body });
      expect([method, path, keyOnly.status, tokenOnly.status]).toEqual([method, path, 401, 401]);
      expect([method, path, foreignKey.status, foreignToken.status]).toEqual([method, path, 403, 403]);
      for (const res of [keyOnly, tokenOnly, foreignKey, foreignToken]) {
        expect(res.body).toEqual({ detail: expect.any(String) });
      }
    }
    // None of the refused calls changed anything.
    const got = await api('GET', `${PATH}/${policy.id}`, as(acme));
    expect(got.body).toEqual(policy);
  });

  it('creates a policy with the defaults of docs/api-behaviour.md §10; money in major units, stored in minor units', async () => {
    const res = await create(acme, { name: 'Full refund', refund_type: 'FULL' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Full refund',
      refund_type: 'FULL',
      refund_percentage: 100,
      refund_window_days: 0,
      prorate_refund: false,
      cancellation_fee: 0,
      apply_to_existing: false,
      is_default: false,
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: res.body.created_at,
    });

    const partial = await create(acme, {
      name: 'Half, minus a fee',
      refund_type: 'PARTIAL',
      refund_percentage: 33.33,
      refund_window_days: 14,
      prorate_refund: true,
      cancellation_fee: 5.5,
      apply_to_existing: true,
      unknown_field: 'ignored',
    });
    expect(partial.status).toBe(201);
    expect(partial.body).toMatchObject({
      refund_type: 'PARTIAL',
      refund_percentage: 33.33,
      refund_window_days: 14,
      prorate_refund: true,
      cancellation_fee: 5.5,
      apply_to_existing: true,
    });
    const [row] = await queryDatabase<{ cancellation_fee: string; refund_percentage: string }>(
      platform.database('policy'),
      'SELECT cancellation_fee, refund_percentage FROM cancellation_policies WHERE id = $1',
      [partial.body.id],
    );
    expect(row).toEqual({ cancellation_fee: '550', refund_percentage: '33.33' });

    // Outside PARTIAL the percentage is ignored: NONE refunds 0 %, FULL 100 %.
    const none = await create(acme, { name: 'No refund', refund_type: 'NONE', refund_percentage: 150 });
    expect(none.status).toBe(201);
    expect(none.body.refund_percentage).toBe(0);
  });

  it('answers 422 in the documented shape for every broken rule', async () => {
    const expect422 = async (body: Record<string, unknown>, field: string, type: string) => {
      const res = await create(acme, body);
      expect([field, res.status]).toEqual([field, 422]);
      const item = res.body.detail.find((d: { loc: string[] }) => d.loc[1] === field);
      expect(item).toMatchObject({ loc: ['body', field], msg: expect.any(String), type });
      return item;
    };
    await expect422({ name: 'X', refund_type: 'SOMETIMES' }, 'refund_type', 'enum');
    await expect422({ name: 'X', refund_type: 'PARTIAL' }, 'refund_percentage', 'missing');
    expect(
      await expect422(
        { name: 'X', refund_type: 'PARTIAL', refund_percentage: 101 },
        'refund_percentage',
        'less_than_equal',
      ),
    ).toMatchObject({ input: 101, ctx: { le: 100 } });
    await expect422(
      { name: 'X', refund_type: 'PARTIAL', refund_percentage: -1 },
      'refund_percentage',
      'greater_than_equal',
    );
    await expect422(
      { name: 'X', refund_type: 'PARTIAL', refund_percentage: 10.125 },
      'refund_percentage',
      'decimal_max_places',
    );
    expect(
      await expect422(
        { name: 'X', refund_type: 'FULL', cancellation_fee: -1 },
        'cancellation_fee',
        'greater_than_equal',
      ),
    ).toMatchObject({ input: -1 });
    await expect422({ name: 'X', refund_type: 'FULL', cancellation_fee: 1.005 }, 'cancellation_fee', 'value_error');
    await expect422({ name: 'X', refund_type: 'FULL', cancellation_fee: 1e20 }, 'cancellation_fee', 'less_than_equal');
    await expect422(
      { name: 'X', refund_type: 'FULL', refund_window_days: -1 },
      'refund_window_days',
      'greater_than_equal',
    );
    await expect422({ name: 'X', refund_type: 'FULL', refund_window_days: 1.5 }, 'refund_window_days', 'int_type');
    await expect422({ name: 'X', refund_type: 'FULL', prorate_refund: 'yes' }, 'prorate_refund', 'bool_type');
    await expect422({ refund_type: 'FULL' }, 'name', 'missing');
    await expect422({ name: 'X' }, 'refund_type', 'missing');

    const broken = await api('POST', PATH, { ...as(acme), raw: '{"name": ' });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toMatchObject({ loc: expect.any(Array), type: expect.any(String) });
  });

  it('gets, pages, patches and deletes a policy', async () => {
    const m = await registerMerchant(api, 'crud');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(m, { name: `P${i}`, refund_type: 'FULL' })).body.id);

    const got = await api('GET', `${PATH}/${ids[0]}`, as(m));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: ids[0], name: 'P0' });

    const first = await api('GET', `${PATH}?limit=2`, as(m));
    expect(first.body.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const next = await api('GET', `${PATH}?limit=2&starting_after=${ids[1]}`, as(m));
    expect(next.body.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect((await api('GET', `${PATH}?starting_after=${ids[0]}`, as(m))).body).toEqual([]);
    const unknownCursor = await api('GET', `${PATH}?starting_after=00000000-0000-4000-8000-000000000000`, as(m));
    expect(unknownCursor.status).toBe(400);
    expect((await api('GET', `${PATH}?limit=101`, as(m))).status).toBe(422);

    const patched = await api('PATCH', `${PATH}/${ids[0]}`, {
      ...as(m),
      body: { name: 'Renamed', refund_type: 'PARTIAL', refund_percentage: 50, cancellation_fee: 2.25 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: ids[0],
      name: 'Renamed',
      refund_type: 'PARTIAL',
      refund_percentage: 50,
      cancellation_fee: 2.25,
      created_at: got.body.created_at,
    });
    // Validated as a whole: back to FULL drops the percentage, so PARTIAL alone then lacks one.
    await api('PATCH', `${PATH}/${ids[0]}`, { ...as(m), body: { refund_type: 'FULL' } });
    const noPercentage = await api('PATCH', `${PATH}/${ids[0]}`, { ...as(m), body: { refund_type: 'PARTIAL' } });
    expect(noPercentage.status).toBe(422);
    expect(noPercentage.body.detail[0]).toMatchObject({ loc: ['body', 'refund_percentage'], type: 'missing' });
    const badPatch = await api('PATCH', `${PATH}/${ids[0]}`, { ...as(m), body: { refund_window_days: -1 } });
    expect(badPatch.status).toBe(422);
    expect((await api('GET', `${PATH}/${ids[0]}`, as(m))).body).toMatchObject({
      refund_type: 'FULL',
      refund_percentage: 100,
      refund_window_days: 0,
    });

    const deleted = await api('DELETE', `${PATH}/${ids[0]}`, as(m));
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api('GET', `${PATH}/${ids[0]}`, as(m))).status).toBe(404);
    expect((await api('DELETE', `${PATH}/${ids[0]}`, as(m))).status).toBe(404);
    expect((await list(m)).map((p) => p.id)).toEqual([ids[2], ids[1]]);
  });

  it('keeps one default per project and mode: a new default unsets the previous one', async () => {
    const m = await registerMerchant(api, 'defaults');
    const first = (await create(m, { name: 'First', refund_type: 'FULL', is_default: true })).body;
    const liveDefault = (await create(m, { name: 'Live', refund_type: 'NONE', is_default: true }, 'live')).body;
    const second = (await create(m, { name: 'Second', refund_type: 'NONE', is_default: true })).body;
    expect(second.is_default).toBe(true);
    expect((await api('GET', `${PATH}/${first.id}`, as(m))).body.is_default).toBe(false);

    const back = await api('PATCH', `${PATH}/${first.id}`, { ...as(m), body: { is_default: true } });
    expect(back.body.is_default).toBe(true);
    expect((await api('GET', `${PATH}/${second.id}`, as(m))).body.is_default).toBe(false);
    // The live mode's default is its own.
    expect((await api('GET', `${PATH}/${liveDefault.id}`, as(m, 'live'))).body.is_default).toBe(true);

    const racing = await Promise.all(
      ['A', 'B'].map((name) => create(m, { name, refund_type: 'FULL', is_default: true })),
    );
    expect(racing.map((r) => r.status)).toEqual([201, 201]);
    const defaults = (await list(m)).filter((p) => p.is_default);
    expect(defaults).toHaveLength(1);
    expect(racing.map((r) => r.body.id)).toContain(defaults[0].id);
  });

  it('keeps test and live mode apart: a test policy is invisible to the live key', async () => {
    const testPolicy = (await create(acme, { name: 'Test only', refund_type: 'FULL' })).body;
    const livePolicy = (await create(acme, { name: 'Live only', refund_type: 'FULL' }, 'live')).body;
    expect(livePolicy.livemode).toBe(true);
    expect((await api('GET', `${PATH}/${testPolicy.id}`, as(acme, 'live'))).status).toBe(404);
    expect((await api('GET', `${PATH}/${livePolicy.id}`, as(acme))).status).toBe(404);
    expect((await api('PATCH', `${PATH}/${testPolicy.id}`, { ...as(acme, 'live'), body: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await api('DELETE', `${PATH}/${testPolicy.id}`, as(acme, 'live'))).status).toBe(404);
    expect((await list(acme, 'live')).map((p) => p.id)).toEqual([livePolicy.id]);
    const testList = await list(acme);
    expect(testList.map((p) => p.id)).toContain(testPolicy.id);
    expect(testList.every((p) => p.livemode === false)).toBe(true);
  });

  it("answers 404 for an unknown or malformed id and 403 for another merchant's policy", async () => {
    const mine = (await create(acme, { name: 'Private', refund_type: 'FULL' })).body;
    expect((await api('GET', `${PATH}/00000000-0000-4000-8000-000000000000`, as(acme))).status).toBe(404);
    const malformed = await api('GET', `${PATH}/not-a-uuid`, as(acme));
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ detail: expect.any(String) });
    expect((await api('PATCH', `${PATH}/not-a-uuid`, { ...as(acme), body: { name: 'x' } })).status).toBe(404);
    expect((await api('DELETE', `${PATH}/not-a-uuid`, as(acme))).status).toBe(404);
    // docs/api-behaviour.md §1: it exists, but in another merchant's project.
    const foreign = await api('GET', `${PATH}/${mine.id}`, as(other));
    expect(foreign.status).toBe(403);
    expect((await api('DELETE', `${PATH}/${mine.id}`, as(other))).status).toBe(403);
    expect((await list(other)).map((p) => p.id)).not.toContain(mine.id);
    expect((await api('GET', `${PATH}/${mine.id}`, as(acme))).status).toBe(200);
  });

  it("dates test-mode policies on the project's test clock", async () => {
    const m = await registerMerchant(api, 'clock');
    const to = new Date(Date.now() + 40 * DAY_MS);
    const advanced = await api('POST', '/api/v1/test-clock/advance', {
      apiKey: m.testKey,
      body: { to: to.toISOString() },
    });
    expect(advanced.status).toBe(200);
    const testPolicy = (await create(m, { name: 'Later', refund_type: 'FULL' })).body;
    expect(new Date(testPolicy.created_at).getTime()).toBeGreaterThanOrEqual(to.getTime());
    const livePolicy = (await create(m, { name: 'Now', refund_type: 'FULL' }, 'live')).body;
    expect(Math.abs(new Date(livePolicy.created_at).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('documents the routes, with both credentials, in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths[PATH]).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${PATH}/{policy_id}`]).sort()).toEqual(['delete', 'get', 'patch']);
    for (const operation of [...Object.values(doc.paths[PATH]), ...Object.values(doc.paths[`${PATH}/{policy_id}`])]) {
      expect((operation as { security: unknown }).security).toEqual([{ ApiKey: [], BearerAuth: [] }]);
    }
    expect(doc.paths[PATH].post.responses['422']).toBeDefined();
    expect(doc.paths[`${PATH}/{policy_id}`].delete.responses['204']).toBeDefined();
    const schema = doc.components.schemas.CancellationPolicy;
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'refund_type',
        'refund_percentage',
        'refund_window_days',
        'prorate_refund',
        'cancellation_fee',
        'apply_to_existing',
        'is_default',
        'created_at',
      ]),
    );
    expect(schema.properties.refund_type.enum).toEqual(['NONE', 'FULL', 'PARTIAL']);
  });
});
