/**
 * @lane timing-critical freezes identity under a 500 ms deadline
 */
import type { PlatformUnderTest } from '@billing/testing';
import { gatewayApi, startGatewayPlatform, uniqueEmail, type Api } from './support/api';

let platform: PlatformUnderTest;
let api: Api;

beforeAll(async () => {
  platform = await startGatewayPlatform({ GRPC_DEADLINE_MS: '500' });
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

// Only calls that need no password hashing: with a 500 ms deadline, a scrypt on a busy test
// machine could time out on its own and blur what this test shows.
const verifyUnknownKey = () => api('GET', '/api/v1/projects/current', { apiKey: 'not-a-key' });

it('answers 503 {detail} when identity does not answer within the deadline, and recovers', async () => {
  expect((await verifyUnknownKey()).status).toBe(401);

  platform.processes.identity.signal('SIGSTOP');
  let frozen;
  const started = Date.now();
  try {
    frozen = await api('POST', '/api/v1/auth/login', { body: { email: uniqueEmail(), password: 'whatever1' } });
  } finally {
    platform.processes.identity.signal('SIGCONT');
  }
  const elapsed = Date.now() - started;

  expect(frozen.status).toBe(503);
  expect(frozen.body).toEqual({ detail: expect.any(String) });
  // A POST without Idempotency-Key: its outcome is unknown, so no Retry-After invites a blind retry.
  expect(frozen.body.detail).toMatch(/outcome of this request is unknown/);
  expect(frozen.headers.get('retry-after')).toBeNull();
  expect(elapsed).toBeLessThan(3000);
  // Identity works through the calls queued while it was frozen; then it answers again.
  let after = await verifyUnknownKey();
  for (let i = 0; i < 20 && after.status === 503; i++) after = await verifyUnknownKey();
  expect(after.status).toBe(401);
});
