import { sharedPlatform, type SharedPlatform } from '@billing/testing';
import { MerchantProfileSchema } from '../src/routes/v1/merchants/merchants.schemas';
import { gatewayApi, ISO_UTC, registerMerchant, type Api } from './support/api';

let platform: SharedPlatform;
let api: Api;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

describe('GET /api/v1/merchants/me', () => {
  it('returns the /auth/me shape plus created_at', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('GET', '/api/v1/merchants/me', { token: merchant.token });

    expect(res.status).toBe(200);
    expect(() => MerchantProfileSchema.strict().parse(res.body)).not.toThrow();
    expect(res.body).toMatchObject({ id: merchant.id, email: merchant.email, is_active: true, is_verified: false });
    expect(res.body.created_at).toBe(merchant.registration.created_at);
    expect(res.body.created_at).toMatch(ISO_UTC);
  });

  it('answers 401 without a token', async () => {
    const res = await api('GET', '/api/v1/merchants/me');

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });
});

describe('PATCH /api/v1/merchants/me', () => {
  it('renames the business', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { business_name: 'Renamed Co' },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: merchant.id, business_name: 'Renamed Co' });
    const me = await api('GET', '/api/v1/auth/me', { token: merchant.token });
    expect(me.body.business_name).toBe('Renamed Co');
  });

  it('changes the password: the new one logs in, the old one no longer does', async () => {
    const merchant = await registerMerchant(api);
    const newPassword = 'the new password';

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { password: newPassword, current_password: merchant.password },
    });

    expect(res.status).toBe(200);
    const withNew = await api('POST', '/api/v1/auth/login', { body: { email: merchant.email, password: newPassword } });
    const withOld = await api('POST', '/api/v1/auth/login', {
      body: { email: merchant.email, password: merchant.password },
    });
    expect(withNew.status).toBe(200);
    expect(withOld.status).toBe(401);
  });

  it('answers 422 at ["body", "current_password"] when the password comes without it', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { password: 'another password' },
    });

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'current_password'], type: 'missing', msg: expect.any(String) }),
    ]);
    const login = await api('POST', '/api/v1/auth/login', {
      body: { email: merchant.email, password: merchant.password },
    });
    expect(login.status).toBe(200);
  });

  it('answers 400 for a wrong current_password and keeps the old password', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { password: 'another password', current_password: 'not the current one' },
    });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String) });
    const login = await api('POST', '/api/v1/auth/login', {
      body: { email: merchant.email, password: merchant.password },
    });
    expect(login.status).toBe(200);
  });

  it('answers 422 for a too short new password and a wrongly typed name', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { business_name: 42, password: 'short', current_password: merchant.password },
    });

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'business_name'], type: 'string_type', input: 42 }),
        expect.objectContaining({ loc: ['body', 'password'], type: 'string_too_short', ctx: { min_length: 8 } }),
      ]),
    );
  });
});

describe('DELETE /api/v1/merchants/me', () => {
  it('deactivates the merchant: 204 without a body, then its token and its API keys get 403', async () => {
    const merchant = await registerMerchant(api);
    // Used once before, so the gateway holds the key as verified: deactivation must drop it.
    const before = await api('GET', '/api/v1/projects/current', { apiKey: merchant.liveKey });
    expect(before.status).toBe(200);

    const res = await api('DELETE', '/api/v1/merchants/me', { token: merchant.token });

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const me = await api('GET', '/api/v1/auth/me', { token: merchant.token });
    expect(me.status).toBe(403);
    expect(me.body).toEqual({ detail: expect.any(String) });
    for (const key of [merchant.liveKey, merchant.testKey]) {
      const current = await api('GET', '/api/v1/projects/current', { apiKey: key });
      expect(current.status).toBe(403);
      expect(current.body).toEqual({ detail: expect.any(String) });
    }
  });
});
