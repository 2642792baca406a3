import type { PlatformUnderTest } from '@billing/testing';
import { gatewayApi, registerMerchant, startGatewayPlatform, type Api } from './support/api';

let platform: PlatformUnderTest;
let api: Api;

beforeAll(async () => {
  platform = await startGatewayPlatform({ JWT_TTL_SECONDS: '4' });
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

it('answers 401 to an expired access token, and a fresh login works again', async () => {
  const merchant = await registerMerchant(api);
  // registerMerchant itself uses the token (projects, keys), which a loaded CI machine can take
  // over a second to reach after the registration's scrypt: 4 s leaves it room. exp has
  // one-second resolution: 5 s after the token the token is expired whatever the rounding.
  await new Promise((resolve) => setTimeout(resolve, 5100));

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
