import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { RegistrationSchema } from '../src/routes/v1/auth/auth.schemas';
import { MerchantSchema } from '../src/routes/v1/merchants/merchants.schemas';
import { gatewayApi, ISO_UTC, registerMerchant, tamperSignature, uniqueEmail, UUID, type Api } from './support/api';

let platform: SharedPlatform;
let api: Api;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

describe('POST /api/v1/auth/register', () => {
  it('creates the merchant with a token and a test key then a live key (prefix + >= 32 base62)', async () => {
    const email = uniqueEmail();
    const res = await api('POST', '/api/v1/auth/register', {
      body: { email, business_name: 'Acme Ltd', password: 'correct horse', unknown_field: 'ignored' },
    });

    expect(res.status).toBe(201);
    expect(() => RegistrationSchema.strict().parse(res.body)).not.toThrow();
    expect(res.body).toMatchObject({ email, business_name: 'Acme Ltd' });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.created_at).toMatch(ISO_UTC);
    expect(res.body.access_token.split('.')).toHaveLength(3);
    const [test, live] = res.body.api_keys;
    expect(res.body.api_keys).toHaveLength(2);
    expect(test).toMatchObject({ key_prefix: 'svc_test_', is_live: false });
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(live).toMatchObject({ key_prefix: 'svc_live_', is_live: true });
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(test.id).not.toBe(live.id);
    expect(typeof test.name).toBe('string');
  });

  it('refuses an email already registered in another letter case with 409', async () => {
    const email = uniqueEmail('Case');
    const first = await api('POST', '/api/v1/auth/register', {
      body: { email, business_name: 'First', password: 'password-1' },
    });
    expect(first.status).toBe(201);

    const again = await api('POST', '/api/v1/auth/register', {
      body: { email: email.toUpperCase(), business_name: 'Second', password: 'password-2' },
    });

    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String) });
  });

  it('refuses a password under 8 characters with a 422 naming the field', async () => {
    const res = await api('POST', '/api/v1/auth/register', {
      body: { email: uniqueEmail(), business_name: 'Shorty', password: 'short' },
    });

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'password'],
        msg: 'String should have at least 8 characters',
        type: 'string_too_short',
        ctx: { min_length: 8 },
      }),
    ]);
  });

  it('reports every missing field at once', async () => {
    const res = await api('POST', '/api/v1/auth/register', { body: {} });

    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [['body', 'email'], 'missing'],
      [['body', 'business_name'], 'missing'],
      [['body', 'password'], 'missing'],
    ]);
  });
});

describe('POST /api/v1/auth/login', () => {
  it('returns a bearer token that authenticates the merchant', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('POST', '/api/v1/auth/login', {
      body: { email: merchant.email.toUpperCase(), password: merchant.password },
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    const me = await api('GET', '/api/v1/auth/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(merchant.id);
  });

  it('answers 401 with the same detail for an unknown email and for a wrong password', async () => {
    const merchant = await registerMerchant(api);

    const wrongPassword = await api('POST', '/api/v1/auth/login', {
      body: { email: merchant.email, password: 'not-the-password' },
    });
    const unknownEmail = await api('POST', '/api/v1/auth/login', {
      body: { email: uniqueEmail('nobody'), password: merchant.password },
    });

    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual({ detail: expect.any(String) });
    expect(unknownEmail.body).toEqual(wrongPassword.body);
  });
});

describe('GET /api/v1/auth/me', () => {
  it('returns the merchant of the token', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('GET', '/api/v1/auth/me', { token: merchant.token });

    expect(res.status).toBe(200);
    expect(() => MerchantSchema.strict().parse(res.body)).not.toThrow();
    expect(res.body).toEqual({
      id: merchant.id,
      email: merchant.email,
      business_name: 'merchant Ltd',
      is_active: true,
      is_verified: false,
    });
  });

  it('answers 401 without a token, with a malformed header and with a tampered signature', async () => {
    const merchant = await registerMerchant(api);

    const missing = await api('GET', '/api/v1/auth/me');
    const notBearer = await api('GET', '/api/v1/auth/me', { headers: { authorization: `Basic ${merchant.token}` } });
    const tampered = await api('GET', '/api/v1/auth/me', { token: tamperSignature(merchant.token) });

    for (const res of [missing, notBearer, tampered]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('does not accept an API key in place of a token', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('GET', '/api/v1/auth/me', { apiKey: merchant.testKey });

    expect(res.status).toBe(401);
  });
});

describe('what identity stores', () => {
  it('keeps no password and no API key in clear in any identity table', async () => {
    const merchant = await registerMerchant(api, 'stored');
    const project = await api('POST', '/api/v1/projects', { token: merchant.token, body: { name: 'Second shop' } });
    const extraKey = await api('POST', '/api/v1/api-keys', {
      token: merchant.token,
      body: { project_id: merchant.projectId, name: 'CI', is_live: false },
    });
    const newPassword = 'a brand new password';
    const changed = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { password: newPassword, current_password: merchant.password },
    });
    expect([project.status, extraKey.status, changed.status]).toEqual([201, 201, 200]);
    const secrets = [
      merchant.password,
      newPassword,
      merchant.testKey,
      merchant.liveKey,
      ...project.body.api_keys.map((k: { key: string }) => k.key),
      extraKey.body.key,
    ];
    // The random part alone must not be stored either (e.g. a key kept without its prefix).
    const keySecrets = secrets.filter((s) => s.startsWith('svc_')).map((k) => k.slice('svc_test_'.length));

    const database = platform.database('identity');
    const tables = await queryDatabase<{ table_name: string }>(
      database,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['merchants', 'projects', 'api_keys']));
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await queryDatabase<{ row: string }>(database, `SELECT t::text AS row FROM "${table_name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }

    expect(dump).toContain(merchant.email);
    for (const secret of [...secrets, ...keySecrets]) expect(dump).not.toContain(secret);
  });
});
