import { createReplica, startPlatform, type PlatformProcess, type PlatformUnderTest } from '@billing/testing';
import { startGatewayReplica } from './support/api';

/**
 * The per-address budget of /api/v1/auth/* behind a proxy (docs/rate-limits.md): a gateway that
 * trusts its proxy (TRUSTED_PROXIES) keys the budget on the client the proxy names in
 * X-Forwarded-For, so two clients behind one ingress do not share it; a gateway that does not
 * trust the peer keys it on the connection, so a forged header buys a client nothing.
 */
describe('client addresses behind a proxy (TRUSTED_PROXIES)', () => {
  const BUDGET = 3;
  let platform: PlatformUnderTest;
  const replicas: PlatformProcess[] = [];
  let behindTrustedProxy: string;
  let behindUntrustedPeer: string;

  beforeAll(async () => {
    platform = await startPlatform({
      only: ['identity', 'gateway'],
      env: { AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS: String(BUDGET) },
    });
    // This test's requests come from 127.0.0.1: one gateway trusts it as its proxy, one trusts
    // only a proxy elsewhere.
    const trusting = await startGatewayReplica(platform, { TRUSTED_PROXIES: 'loopback' });
    const distrusting = await startGatewayReplica(platform, { TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16' });
    replicas.push(trusting.process, distrusting.process);
    behindTrustedProxy = trusting.url;
    behindUntrustedPeer = distrusting.url;
  }, 120_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await platform?.stop();
  });

  /** A login attempt as a client at `client` (a 422 for its empty body, or a 429 once over budget). */
  const attempt = async (gatewayUrl: string, client: string): Promise<number> => {
    const res = await fetch(`${gatewayUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: '{}',
    });
    await res.text();
    return res.status;
  };

  const attempts = async (gatewayUrl: string, client: string, n: number): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) statuses.push(await attempt(gatewayUrl, client));
    return statuses;
  };

  it('gives two clients behind a trusted proxy a budget each', async () => {
    expect(await attempts(behindTrustedProxy, '203.0.113.10', BUDGET)).toEqual(Array(BUDGET).fill(422));
    expect(await attempt(behindTrustedProxy, '203.0.113.10')).toBe(429);
    // The other client behind the same proxy still has its whole budget.
    expect(await attempts(behindTrustedProxy, '203.0.113.20', BUDGET)).toEqual(Array(BUDGET).fill(422));
    expect(await attempt(behindTrustedProxy, '203.0.113.20')).toBe(429);
  });

  it('keys on the proxy-named client, not on addresses a client adds before it', async () => {
    // The proxy appends the address it saw; what the client wrote before it is not believed.
    const statuses = await attempts(behindTrustedProxy, '198.51.100.1, 203.0.113.30', BUDGET);
    expect(statuses).toEqual(Array(BUDGET).fill(422));
    expect(await attempt(behindTrustedProxy, '198.51.100.2, 203.0.113.30')).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer it does not trust: forged addresses share the connection budget', async () => {
    const statuses = [
      await attempt(behindUntrustedPeer, '203.0.113.40'),
      await attempt(behindUntrustedPeer, '203.0.113.41'),
      await attempt(behindUntrustedPeer, '203.0.113.42'),
      await attempt(behindUntrustedPeer, '203.0.113.43'),
    ];
    expect(statuses).toEqual([422, 422, 422, 429]);
  });

  it('refuses to start with a TRUSTED_PROXIES entry that is not an address, a range or a known name', async () => {
    for (const wrong of ['ingress', '10.0.0.0/33', '10.0.0.1/8/8']) {
      const replica = await createReplica(platform, 'gateway', { TRUSTED_PROXIES: wrong });
      await expect(replica.process.start()).rejects.toThrow(/TRUSTED_PROXIES/);
    }
  });
});
