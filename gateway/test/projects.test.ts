import { sharedPlatform, type SharedPlatform } from '@billing/testing';
import { CreatedProjectSchema, CurrentProjectSchema, ProjectSchema } from '../src/routes/v1/projects/projects.schemas';
import { gatewayApi, ISO_UTC, registerMerchant, UUID, type Api, type RegisteredMerchant } from './support/api';

let platform: SharedPlatform;
let api: Api;
let merchant: RegisteredMerchant;
let other: RegisteredMerchant;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
  merchant = await registerMerchant(api, 'projects');
  other = await registerMerchant(api, 'other');
});

afterAll(() => platform?.stop());

describe.each(['/api/v1/projects', '/api/v1/merchants/projects'])('projects at %s', (base) => {
  it('creates a project with a test key and a live key, secrets included', async () => {
    const res = await api('POST', base, { token: merchant.token, body: { name: `Shop via ${base}` } });

    expect(res.status).toBe(201);
    expect(() => CreatedProjectSchema.strict().parse(res.body)).not.toThrow();
    expect(res.body).toMatchObject({ name: `Shop via ${base}` });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.created_at).toMatch(ISO_UTC);
    const [test, live] = res.body.api_keys;
    expect(test).toMatchObject({ project_id: res.body.id, is_live: false, key_prefix: 'svc_test_', is_active: true });
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(live).toMatchObject({ project_id: res.body.id, is_live: true, key_prefix: 'svc_live_' });
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);

    const current = await api('GET', '/api/v1/projects/current', { apiKey: live.key });
    expect(current.body).toMatchObject({ id: res.body.id, livemode: true });
  });

  it("lists the merchant's projects only, as {id, name, created_at}", async () => {
    const created = await api('POST', base, { token: merchant.token, body: { name: 'Listed shop' } });

    const res = await api('GET', base, { token: merchant.token });

    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    for (const project of res.body) expect(() => ProjectSchema.strict().parse(project)).not.toThrow();
    const ids = res.body.map((p: { id: string }) => p.id);
    expect(ids).toEqual(expect.arrayContaining([merchant.projectId, created.body.id]));
    expect(ids).not.toContain(other.projectId);
  });

  it('gets one project', async () => {
    const res = await api('GET', `${base}/${merchant.projectId}`, { token: merchant.token });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: merchant.projectId,
      name: 'projects Ltd',
      created_at: expect.stringMatching(ISO_UTC),
    });
  });

  it("answers 403 for another merchant's project", async () => {
    const res = await api('GET', `${base}/${other.projectId}`, { token: merchant.token });

    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 404 for an unknown id and for a malformed one', async () => {
    const unknown = await api('GET', `${base}/6f1c1a52-3c57-4a4e-9d65-3d3b3f7f0a11`, { token: merchant.token });
    const malformed = await api('GET', `${base}/not-a-uuid`, { token: merchant.token });
    const sqlish = await api('GET', `${base}/1'%20OR%20'1'='1`, { token: merchant.token });

    for (const res of [unknown, malformed, sqlish]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('answers 422 for a missing or blank name and 401 without a token', async () => {
    const missing = await api('POST', base, { token: merchant.token, body: {} });
    const blank = await api('POST', base, { token: merchant.token, body: { name: '   ' } });
    const anonymous = await api('GET', base);

    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })]);
    expect(blank.status).toBe(422);
    expect(blank.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_short' })]);
    expect(anonymous.status).toBe(401);
  });
});

describe('GET /api/v1/projects/current', () => {
  it("returns the key's project: same id for the test and the live key, livemode false and true", async () => {
    const test = await api('GET', '/api/v1/projects/current', { apiKey: merchant.testKey });
    const live = await api('GET', '/api/v1/projects/current', { apiKey: merchant.liveKey });

    expect(test.status).toBe(200);
    expect(live.status).toBe(200);
    expect(() => CurrentProjectSchema.strict().parse(test.body)).not.toThrow();
    expect(test.body).toEqual({
      id: merchant.projectId,
      name: 'projects Ltd',
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
    });
    expect(live.body).toEqual({ ...test.body, livemode: true });
  });

  it('answers 401 without a key, with an unknown key and with a JWT instead of a key', async () => {
    const missing = await api('GET', '/api/v1/projects/current');
    const unknown = await api('GET', '/api/v1/projects/current', { apiKey: `svc_test_${'x'.repeat(40)}` });
    const garbage = await api('GET', '/api/v1/projects/current', { apiKey: 'hello' });
    const jwtOnly = await api('GET', '/api/v1/projects/current', { token: merchant.token });

    for (const res of [missing, unknown, garbage, jwtOnly]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });
});
