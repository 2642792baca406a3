/**
 * @lane timing-critical a revocation reaching a second gateway within a bound
 */
import type { PlatformProcess, PlatformUnderTest } from '@billing/testing';
import { gatewayApi, registerMerchant, startGatewayPlatform, startGatewayReplica, type Api } from './support/api';

/**
 * Two gateway replicas with a long key cache: revoking or disabling a key through one replica
 * reaches the other through identity's outbox -> NATS, long before the cache TTL would.
 */
describe('API key revocation across gateway replicas', () => {
  let platform: PlatformUnderTest;
  let replicaA: Api;
  let replicaB: Api;
  let second: PlatformProcess;

  beforeAll(async () => {
    platform = await startGatewayPlatform({ API_KEY_CACHE_TTL_MS: '120000' });
    const replica = await startGatewayReplica(platform);
    second = replica.process;
    replicaA = gatewayApi(platform.gatewayUrl);
    replicaB = gatewayApi(replica.url);
  });
  afterAll(async () => {
    await second?.stop();
    await platform?.stop();
  });

  async function statusOnB(apiKey: string, expected: number, withinMs: number): Promise<number> {
    const deadline = Date.now() + withinMs;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await replicaB('GET', '/api/v1/projects/current', { apiKey })).status;
      if (status === expected) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
    return status;
  }

  it('a key revoked on replica A stops working on replica B within seconds', async () => {
    const merchant = await registerMerchant(replicaA, 'replicas');
    // Cached as valid on B.
    expect((await replicaB('GET', '/api/v1/projects/current', { apiKey: merchant.testKey })).status).toBe(200);
    const revoked = await replicaA('DELETE', `/api/v1/api-keys/${merchant.registration.api_keys[0].id}`, {
      token: merchant.token,
    });
    expect(revoked.status).toBe(204);
    expect(await statusOnB(merchant.testKey, 401, 5000)).toBe(401);
  });

  it('a merchant deactivated on replica A is refused on replica B within seconds', async () => {
    const merchant = await registerMerchant(replicaA, 'replicas');
    expect((await replicaB('GET', '/api/v1/projects/current', { apiKey: merchant.liveKey })).status).toBe(200);
    expect((await replicaA('DELETE', '/api/v1/merchants/me', { token: merchant.token })).status).toBe(204);
    expect(await statusOnB(merchant.liveKey, 403, 5000)).toBe(403);
  });
});
