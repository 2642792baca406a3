import type { PlatformUnderTest } from '@billing/testing';
import { gatewayApi, registerMerchant, startGatewayPlatform, type Api } from './support/api';

let platform: PlatformUnderTest;
let api: Api;

beforeAll(async () => {
  platform = await startGatewayPlatform({ JWT_TTL_SECONDS: '2' });
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

it('answers 401 to an expired access token, and a fresh login works again', async () => {
  const merchant = await registerMerchant(api);
  // registerMerchant itself uses the token (projects), within its 2 s. Expiry is the passing of
  // time itself, so there is no event to await: wait until a second past the token's own exp
  // (exp has one-second resolution), whatever the registration took.
  const { exp } = JSON.parse(Buffer.from(merchant.token.split('.')[1], 'base64url').toString()) as { exp: number };
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 + 1000 - Date.now())));

  const me = await api('GET', '/api/v1/auth/me', { token: merchant.token });
  const projects = await api('GET', '/api/v1/projects', { token: merchant.token });

  expect(me.status).toBe(401);
  expect(me.body).toEqual({ detail: expect.any(String) });
  expect(projects.status).toBe(401);
  const login = await api('POST', '/api/v1/auth/login', {
    body: { email: merchant.email, password: merchant.password },
  });
  expect(login.status).toBe(200);
});
