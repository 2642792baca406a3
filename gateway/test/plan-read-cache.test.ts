import {
  parseMetrics,
  scrapeMetrics,
  startPlatform,
  type PlatformProcess,
  type PlatformUnderTest,
} from '@billing/testing';
import { gatewayApi, registerMerchant, startGatewayReplica, type Api, type RegisteredMerchant } from './support/api';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

/**
 * The gateway's plan cache (docs/decisions.md, "Plan reads cached in the gateway") across two
 * replicas on one platform. The TTL is two minutes, so nothing here is fresh by expiry: every
 * fresh read comes from catalog's announcement reaching the replica, or from the replica having
 * stopped trusting its cache. Replica B reaches NATS through a TCP relay the test can cut.
 */
describe('plan reads cached in the gateway, invalidated on every replica', () => {
  let platform: PlatformUnderTest;
  let proxy: TcpProxy;
  let replicaB: PlatformProcess;
  let onA: Api;
  let onB: Api;
  let acme: RegisteredMerchant;

  /** How replica B's plan cache has answered so far: hit, miss, bypass. */
  async function cacheReadsOnB(): Promise<Record<'hit' | 'miss' | 'bypass', number>> {
    const res = await fetch(`http://127.0.0.1:${replicaB.env.METRICS_PORT}/metrics`);
    const samples = parseMetrics(await res.text()).filter((s) => s.name === 'gateway_plan_cache_reads_total');
    const of = (outcome: string) => samples.find((s) => s.labels.outcome === outcome)?.value ?? 0;
    return { hit: of('hit'), miss: of('miss'), bypass: of('bypass') };
  }

  async function createPlan(api: Api, apiKey: string, name: string): Promise<string> {
    const res = await api('POST', '/api/v1/plans', { apiKey, body: { name, amount: 1500 } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function planOn(api: Api, apiKey: string, planId: string) {
    const res = await api('GET', `/api/v1/plans/${planId}`, { apiKey });
    expect(res.status).toBe(200);
    return res.body as { name: string; is_active: boolean; metadata: Record<string, unknown> };
  }

  /** Reads on B until `done` holds for B's cache counters (B notices a NATS drop or return on its own time). */
  async function readOnBUntil(
    planId: string,
    done: (reads: Awaited<ReturnType<typeof cacheReadsOnB>>) => boolean,
  ): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      await planOn(onB, acme.testKey, planId);
      if (done(await cacheReadsOnB())) return;
      if (Date.now() > deadline) throw new Error(`replica B's plan cache did not change state: ${replicaB.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    platform = await startPlatform({ only: ['identity', 'catalog', 'gateway'], env: { PLAN_CACHE_TTL_MS: '120000' } });
    const nats = new URL(platform.env.NATS_URL);
    proxy = await startTcpProxy(nats.hostname, Number(nats.port || 4222));
    const replica = await startGatewayReplica(platform, { NATS_URL: `nats://127.0.0.1:${proxy.port}` });
    replicaB = replica.process;
    onA = gatewayApi(platform.gatewayUrl);
    onB = gatewayApi(replica.url);
    acme = await registerMerchant(onA, 'plan-cache');
  });
  afterAll(async () => {
    await replicaB?.stop();
    await proxy?.close();
    await platform?.stop();
  });

  it('a change made through replica A is in the very next read on replica B, every time, reads racing the writes', async () => {
    const planId = await createPlan(onA, acme.testKey, 'v0');
    const before = await cacheReadsOnB();
    const rounds = 40;
    for (let round = 1; round <= rounds; round++) {
      // Warm on both replicas: the second read on B is answered from its cache.
      await planOn(onA, acme.testKey, planId);
      await planOn(onB, acme.testKey, planId);
      await planOn(onB, acme.testKey, planId);
      // Reads on B keep coming while the write runs, so that loads that saw the old plan race
      // the announcement (a load that started before it must not be stored after it).
      let writing = true;
      const racing = (async () => {
        while (writing) await planOn(onB, acme.testKey, planId);
      })();
      const change =
        round % 4 === 0
          ? await onA('DELETE', `/api/v1/plans/${planId}`, { apiKey: acme.testKey })
          : await onA('PATCH', `/api/v1/plans/${planId}`, {
              apiKey: acme.testKey,
              body: { name: `v${round}`, is_active: true, metadata: { round } },
            });
      writing = false;
      expect(change.status).toBe(round % 4 === 0 ? 204 : 200);
      const seenOnB = await planOn(onB, acme.testKey, planId);
      const seenOnA = await planOn(onA, acme.testKey, planId);
      await racing;
      if (round % 4 === 0) {
        expect({ round, active: seenOnB.is_active }).toEqual({ round, active: false });
        expect(seenOnA.is_active).toBe(false);
      } else {
        expect({ round, name: seenOnB.name, active: seenOnB.is_active }).toEqual({
          round,
          name: `v${round}`,
          active: true,
        });
        expect(seenOnB.metadata).toEqual({ round });
        expect(seenOnA.name).toBe(`v${round}`);
      }
    }
    // The cache was in the path: B answered from it between the changes. A read whose NATS round
    // trip did not come back in time asks catalog instead (a bypass: the safe answer, seen once
    // in a CI run of a CPU-bound machine), so a few may be, never most.
    const after = await cacheReadsOnB();
    expect(after.hit - before.hit).toBeGreaterThanOrEqual(rounds);
    expect(after.bypass - before.bypass).toBeLessThanOrEqual(rounds / 10);
  });

  it("never answers one project's or mode's cached plan to another's key", async () => {
    const other = await registerMerchant(onA, 'plan-cache-other');
    const planId = await createPlan(onA, acme.testKey, 'Acme only');
    for (const api of [onA, onB]) {
      // Cached for acme's test key on both replicas.
      expect((await planOn(api, acme.testKey, planId)).name).toBe('Acme only');
      expect((await planOn(api, acme.testKey, planId)).name).toBe('Acme only');
      // Another project's key: refused, as catalog refuses it.
      const foreign = await api('GET', `/api/v1/plans/${planId}`, { apiKey: other.testKey });
      expect(foreign.status).toBe(403);
      expect(foreign.text).not.toContain('Acme only');
      // The same project in live mode: a test-mode plan does not exist there.
      const live = await api('GET', `/api/v1/plans/${planId}`, { apiKey: acme.liveKey });
      expect(live.status).toBe(404);
      expect(live.text).not.toContain('Acme only');
    }
  });

  it('a replica cut off from NATS stops caching and clears its cache; once back, it caches again and obeys changes', async () => {
    const planId = await createPlan(onA, acme.testKey, 'before the cut');
    await planOn(onB, acme.testKey, planId);
    const warm = await cacheReadsOnB();
    expect((await planOn(onB, acme.testKey, planId)).name).toBe('before the cut');
    expect((await cacheReadsOnB()).hit).toBe(warm.hit + 1);

    await proxy.cut();
    // B notices the drop: its reads bypass the cache from then on.
    const cut = await cacheReadsOnB();
    await readOnBUntil(planId, (reads) => reads.bypass > cut.bypass);
    // A change B cannot hear about: its next read shows it all the same.
    const renamed = await onA('PATCH', `/api/v1/plans/${planId}`, {
      apiKey: acme.testKey,
      body: { name: 'during the cut' },
    });
    expect(renamed.status).toBe(200);
    expect((await planOn(onB, acme.testKey, planId)).name).toBe('during the cut');

    await proxy.restore();
    // B reconnects (nats.js retries every 500 ms) and caches again: a read that is no bypass.
    await readOnBUntil(planId, (reads) => reads.hit + reads.miss > warm.hit + warm.miss + 1);
    expect((await planOn(onB, acme.testKey, planId)).name).toBe('during the cut');
    const back = await cacheReadsOnB();
    expect((await planOn(onB, acme.testKey, planId)).name).toBe('during the cut');
    expect((await cacheReadsOnB()).hit).toBe(back.hit + 1);
    // Its subscription is live again: a change through A is in B's next read.
    const again = await onA('PATCH', `/api/v1/plans/${planId}`, { apiKey: acme.testKey, body: { name: 'after' } });
    expect(again.status).toBe(200);
    expect((await planOn(onB, acme.testKey, planId)).name).toBe('after');
  });

  it('answers cached reads of A from its cache too, and counts every one in the rate limiter', async () => {
    const planId = await createPlan(onA, acme.testKey, 'counted');
    await planOn(onA, acme.testKey, planId);
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await onA('GET', `/api/v1/plans/${planId}`, { apiKey: acme.testKey });
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    // Each cached answer still took a point of the key's budget in Redis: one less each time,
    // but where a 2 s window ended between two reads (at most once in this short burst).
    const steps = remaining.slice(1).filter((value, i) => value === remaining[i] - 1).length;
    expect(steps).toBeGreaterThanOrEqual(8);
    const scrape = await scrapeMetrics(platform, 'gateway');
    expect(scrape.sum('gateway_plan_cache_reads_total', { outcome: 'hit' })).toBeGreaterThan(0);
  });
});
