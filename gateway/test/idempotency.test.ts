import { randomUUID } from 'node:crypto';
import { queryDatabase, sharedPlatform, type PlatformProcess, type SharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, startGatewayReplica, type Api, type RegisteredMerchant } from './support/api';

/** Idempotency-Key across two gateway processes sharing the gateway's database (the shared platform's and one more). */
describe('Idempotency-Key (two gateway replicas)', () => {
  let platform: SharedPlatform;
  let second: PlatformProcess;
  let secondUrl: string;
  let a: Api;
  let b: Api;
  let m: RegisteredMerchant;

  beforeAll(async () => {
    platform = await sharedPlatform();
    ({ process: second, url: secondUrl } = await startGatewayReplica(platform));
    a = gatewayApi(platform.gatewayUrl);
    b = gatewayApi(secondUrl);
    m = await registerMerchant(a, 'idem');
  }, 240_000);
  afterAll(async () => {
    await second?.stop();
    await platform?.stop();
  }, 60_000);

  const createPlan = (api: Api, key: string, body: object, apiKey = m.testKey) =>
    api('POST', '/api/v1/plans', { apiKey, body, headers: { 'Idempotency-Key': key } });
  const plansNamed = async (name: string, apiKey = m.testKey) => {
    const res = await a('GET', '/api/v1/plans?limit=100', { apiKey });
    expect(res.status).toBe(200);
    return (res.body as { name: string }[]).filter((p) => p.name === name);
  };

  it('the same key sent to both replicas at once creates one resource; the other gets the replay or 409 in progress', async () => {
    for (let round = 0; round < 5; round += 1) {
      const key = `concurrent-${round}-${randomUUID()}`;
      const name = `Concurrent ${round} ${key}`;
      const answers = await Promise.all([
        createPlan(a, key, { name, amount: 1000 }),
        createPlan(b, key, { name, amount: 1000 }),
      ]);
      const created = answers.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const other of answers) {
        if (other.status === 201) {
          if (other !== created[0]) expect(other.body).toEqual(created[0].body);
          continue;
        }
        expect(other.status).toBe(409);
        expect(other.body.detail).toMatch(/in progress/);
      }
      expect(await plansNamed(name)).toHaveLength(1);
      // Whichever replica ran it, both now replay it.
      for (const api of [a, b]) {
        const replay = await createPlan(api, key, { name, amount: 1000 });
        expect(replay.status).toBe(201);
        expect(replay.body.id).toBe(created[0].body.id);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
      }
    }
  });

  it('a replay returns the first status and body byte for byte with Idempotent-Replayed: true; a new body is a 409', async () => {
    const key = `replay-${randomUUID()}`;
    const body = { name: `Replay ${key}`, amount: 2500, currency: 'NGN', metadata: { a: 1, b: [1, 2] } };
    const first = await createPlan(a, key, body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body with its keys in another order is the same body.
    const reordered = { metadata: { b: [1, 2], a: 1 }, currency: 'NGN', amount: 2500, name: body.name };
    const replay = await createPlan(b, key, reordered);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toMatch(/^application\/json/);

    const changed = await createPlan(b, key, { ...body, amount: 2501 });
    expect(changed.status).toBe(409);
    expect(changed.body).toEqual({ detail: expect.stringMatching(/different request body/) });
    expect(await plansNamed(body.name)).toHaveLength(1);
  });

  it('another API key, or another path, with the same key is a new request', async () => {
    const key = `scope-${randomUUID()}`;
    const name = `Scoped ${key}`;
    const first = await createPlan(a, key, { name, amount: 700 });
    expect(first.status).toBe(201);
    // The live key of the same project: its own scope.
    const live = await createPlan(b, key, { name, amount: 700 }, m.liveKey);
    expect(live.status).toBe(201);
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    expect(live.body.id).not.toBe(first.body.id);
    // Another merchant's test key.
    const other = await registerMerchant(a, 'idem-other');
    const foreign = await createPlan(a, key, { name, amount: 700 }, other.testKey);
    expect(foreign.status).toBe(201);
    expect(foreign.body.id).not.toBe(first.body.id);
    // Another path under the same API key.
    const session = await b('POST', '/api/v1/checkout/sessions', {
      apiKey: m.testKey,
      body: { plan_id: first.body.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(session.status).toBe(201);
    expect(session.headers.get('idempotent-replayed')).toBeNull();
    expect(await plansNamed(name)).toHaveLength(1);
    expect(await plansNamed(name, m.liveKey)).toHaveLength(1);
  });

  it('the same route whatever the letter case or trailing slash of its path is the same request: one plan', async () => {
    const key = `route-${randomUUID()}`;
    const body = { name: `Routed ${key}`, amount: 900 };
    const first = await createPlan(a, key, body);
    expect(first.status).toBe(201);
    for (const path of ['/API/V1/Plans', '/api/v1/plans/', '/Api/v1/PLANS/']) {
      const again = await b('POST', path, { apiKey: m.testKey, body, headers: { 'Idempotency-Key': key } });
      expect([path, again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([
        path,
        201,
        'true',
        first.text,
      ]);
    }
    expect(await plansNamed(body.name)).toHaveLength(1);
  });

  it('a 4xx answer is stored and replayed; a token-only request is scoped to its merchant', async () => {
    const key = `invalid-${randomUUID()}`;
    const first = await createPlan(a, key, { name: 'No amount' });
    expect(first.status).toBe(422);
    const replay = await createPlan(b, key, { name: 'No amount' });
    expect([replay.status, replay.text, replay.headers.get('idempotent-replayed')]).toEqual([422, first.text, 'true']);

    const projectKey = `project-${randomUUID()}`;
    const project = (api: Api) =>
      api('POST', '/api/v1/projects', {
        token: m.token,
        body: { name: `Project ${projectKey}` },
        headers: { 'Idempotency-Key': projectKey },
      });
    const created = await project(a);
    expect(created.status).toBe(201);
    const again = await project(b);
    expect([again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([
      201,
      created.body.id,
      'true',
    ]);
  });

  it('refuses a key that is empty, longer than 255 or not printable ASCII with 422 in the published shape', async () => {
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await fetch(`${platform.gatewayUrl}/api/v1/plans`, {
        method: 'POST',
        headers: { 'x-api-key': m.testKey, 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ name: 'Bad key', amount: 100 }),
      }).catch(() => null);
      // fetch itself refuses some header values (non-Latin-1); those never reach a server.
      if (!res) continue;
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
      expect(body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'value_error' });
    }
    expect((await createPlan(a, 'k'.repeat(255), { name: `Longest ${randomUUID()}`, amount: 1 })).status).toBe(201);
    expect(await plansNamed('Bad key')).toHaveLength(0);
  });

  it('records survive a gateway restart, live in the gateway database and expire after 24 h', async () => {
    const key = `restart-${randomUUID()}`;
    const first = await createPlan(b, key, { name: `Restart ${key}`, amount: 300 });
    expect(first.status).toBe(201);
    await second.stop();
    await second.start();
    const replay = await createPlan(b, key, { name: `Restart ${key}`, amount: 300 });
    expect([replay.status, replay.text, replay.headers.get('idempotent-replayed')]).toEqual([201, first.text, 'true']);

    const [row] = await queryDatabase<{ created_at: Date; expires_at: Date; status: number }>(
      platform.database('gateway'),
      'SELECT created_at, expires_at, status FROM idempotency_records WHERE idempotency_key = $1',
      [key],
    );
    expect(row.status).toBe(201);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(24 * 60 * 60 * 1000);
    // Expired: the key starts afresh (a new plan).
    await queryDatabase(
      platform.database('gateway'),
      `UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`,
      [key],
    );
    const fresh = await createPlan(a, key, { name: `Restart ${key}`, amount: 300 });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(first.body.id);
  });
});
