import { sharedPlatform, type SharedPlatform } from '@billing/testing';
import { ApiKeySchema, ApiKeyWithSecretSchema } from '../src/routes/v1/api-keys/api-keys.schemas';
import { gatewayApi, ISO_UTC, registerMerchant, type Api, type RegisteredMerchant } from './support/api';

let platform: SharedPlatform;
let api: Api;
let merchant: RegisteredMerchant;
let other: RegisteredMerchant;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
  merchant = await registerMerchant(api, 'keys');
  other = await registerMerchant(api, 'other');
});

afterAll(() => platform?.stop());

const current = (apiKey: string) => api('GET', '/api/v1/projects/current', { apiKey });

describe.each(['/api/v1/api-keys', '/api/v1/merchants/api-keys'])('API keys at %s', (base) => {
  const createKey = (isLive: boolean, name = 'Server key') =>
    api('POST', base, { token: merchant.token, body: { project_id: merchant.projectId, name, is_live: isLive } });

  it('creates a key and shows its secret once', async () => {
    const res = await createKey(true, 'Checkout server');

    expect(res.status).toBe(201);
    expect(() => ApiKeyWithSecretSchema.strict().parse(res.body)).not.toThrow();
    expect(res.body).toMatchObject({
      project_id: merchant.projectId,
      name: 'Checkout server',
      key_prefix: 'svc_live_',
      is_live: true,
      is_active: true,
      last_used_at: null,
    });
    expect(res.body.key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(res.body.last4).toBe(res.body.key.slice(-4));
    expect(res.body.created_at).toMatch(ISO_UTC);
    const used = await current(res.body.key);
    expect(used.body).toMatchObject({ id: merchant.projectId, livemode: true });
  });

  it('lists keys without their secrets, optionally for one project', async () => {
    const created = await createKey(false, 'Listed key');
    const project = await api('POST', '/api/v1/projects', { token: merchant.token, body: { name: 'Elsewhere' } });

    const all = await api('GET', base, { token: merchant.token });
    const filtered = await api('GET', `${base}?project_id=${merchant.projectId}`, { token: merchant.token });

    expect(all.status).toBe(200);
    expect(filtered.status).toBe(200);
    for (const key of [...all.body, ...filtered.body]) {
      expect(() => ApiKeySchema.strict().parse(key)).not.toThrow();
      expect(key).not.toHaveProperty('key');
      expect(JSON.stringify(key)).not.toContain(created.body.key);
    }
    const allIds = all.body.map((k: { id: string }) => k.id);
    expect(allIds).toContain(created.body.id);
    expect(allIds).toEqual(expect.arrayContaining(project.body.api_keys.map((k: { id: string }) => k.id)));
    expect(filtered.body.every((k: { project_id: string }) => k.project_id === merchant.projectId)).toBe(true);
    expect(filtered.body.map((k: { id: string }) => k.id)).toContain(created.body.id);
  });

  it('revokes a key: 204, then the key gets 401 at once and leaves the list', async () => {
    const created = await createKey(false);
    // Verified once, so the gateway holds it in its cache: revocation must drop it.
    expect((await current(created.body.key)).status).toBe(200);

    const res = await api('DELETE', `${base}/${created.body.id}`, { token: merchant.token });

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await current(created.body.key);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: expect.any(String) });
    const list = await api('GET', base, { token: merchant.token });
    expect(list.body.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
  });

  it('disables a key (then 403) and enables it again (then 200)', async () => {
    const created = await createKey(true);
    expect((await current(created.body.key)).status).toBe(200);

    const disabled = await api('PATCH', `${base}/${created.body.id}`, {
      token: merchant.token,
      body: { is_active: false },
    });

    expect(disabled.status).toBe(200);
    expect(() => ApiKeySchema.strict().parse(disabled.body)).not.toThrow();
    expect(disabled.body).toMatchObject({ id: created.body.id, is_active: false });
    expect(disabled.body).not.toHaveProperty('key');
    const refused = await current(created.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: expect.any(String) });

    const enabled = await api('PATCH', `${base}/${created.body.id}`, {
      token: merchant.token,
      body: { is_active: true },
    });

    expect(enabled.status).toBe(200);
    expect(enabled.body.is_active).toBe(true);
    expect((await current(created.body.key)).status).toBe(200);
  });

  it("refuses another merchant's project and keys with 403, unknown and malformed ids with 404", async () => {
    const foreignProject = await api('POST', base, {
      token: merchant.token,
      body: { project_id: other.projectId, name: 'Sneaky', is_live: false },
    });
    const foreignKeys = await api('GET', `${base}?project_id=${other.projectId}`, { token: other.token });
    const foreignKeyId = foreignKeys.body[0].id;
    const revokeForeign = await api('DELETE', `${base}/${foreignKeyId}`, { token: merchant.token });
    const disableForeign = await api('PATCH', `${base}/${foreignKeyId}`, {
      token: merchant.token,
      body: { is_active: false },
    });
    const unknown = await api('DELETE', `${base}/0b3c8f36-5a9e-4f0e-8d7f-1c2b3a4d5e6f`, { token: merchant.token });
    const malformed = await api('PATCH', `${base}/12345`, { token: merchant.token, body: { is_active: false } });

    expect(foreignProject.status).toBe(403);
    expect(revokeForeign.status).toBe(403);
    expect(disableForeign.status).toBe(403);
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(404);
    expect((await current(other.testKey)).status).toBe(200);
  });

  it('validates bodies and queries with 422', async () => {
    const badBody = await api('POST', base, {
      token: merchant.token,
      body: { project_id: 'nope', is_live: 'yes' },
    });
    const badQuery = await api('GET', `${base}?project_id=nope`, { token: merchant.token });
    const badPatch = await api('PATCH', `${base}/${merchant.registration.api_keys[0].id}`, {
      token: merchant.token,
      body: { is_active: 'false' },
    });

    expect(badBody.status).toBe(422);
    expect(badBody.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'project_id'], 'uuid_parsing'],
      [['body', 'name'], 'missing'],
      [['body', 'is_live'], 'bool_type'],
    ]);
    expect(badQuery.status).toBe(422);
    expect(badQuery.body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'project_id'], type: 'uuid_parsing' }),
    ]);
    expect(badPatch.status).toBe(422);
    expect(badPatch.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'is_active'], type: 'bool_type', input: 'false' }),
    ]);
  });
});
