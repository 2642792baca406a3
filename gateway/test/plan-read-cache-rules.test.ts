import { PlanReadCache, type PlanAnswer } from '../src/cache/plan-read-cache';

/**
 * The rules of the gateway's plan cache in one process, where the interleavings that the
 * two-replica test (plan-read-cache.test.ts) can only hope to hit are made to happen: a load
 * that read the old plan finishing after the change's announcement, a drop of NATS mid-load.
 */
describe('PlanReadCache', () => {
  const scope = { projectId: 'project-1', livemode: false };
  const plan = (name: string) => ({ name }) as unknown as PlanAnswer;

  /** A load the test finishes when it wants, counting how often the cache asked. */
  function controlledLoads() {
    const pending: ((answer: PlanAnswer) => void)[] = [];
    let finished = 0;
    let calls = 0;
    return {
      load: () =>
        new Promise<PlanAnswer>((resolve) => {
          calls++;
          pending.push(resolve);
        }),
      /** Finishes the oldest unfinished load, or the `index`th load (0 = the first asked). */
      finish: (answer: PlanAnswer, index = finished) => {
        finished++;
        pending[index](answer);
      },
      get calls() {
        return calls;
      },
    };
  }

  function trustedCache(): PlanReadCache {
    const cache = new PlanReadCache(60_000);
    cache.resume();
    return cache;
  }

  it('answers a second read from the cache, and shares one load between concurrent misses', async () => {
    const cache = trustedCache();
    const loads = controlledLoads();
    const first = cache.read(scope, 'plan-1', loads.load);
    const second = cache.read(scope, 'plan-1', loads.load);
    loads.finish(plan('v1'));
    expect(await first).toEqual(plan('v1'));
    expect(await second).toEqual(plan('v1'));
    expect(await cache.read(scope, 'plan-1', loads.load)).toEqual(plan('v1'));
    expect(loads.calls).toBe(1);
  });

  it('does not store a load that started before an invalidation, nor hand it to reads after it', async () => {
    const cache = trustedCache();
    const loads = controlledLoads();
    // Started before the change was announced: it may have read the old plan.
    const before = cache.read(scope, 'plan-1', loads.load);
    cache.invalidate(scope, 'plan-1');
    // A read after the announcement does not join it: it loads anew.
    const after = cache.read(scope, 'plan-1', loads.load);
    expect(loads.calls).toBe(2);
    // The old read is the slower one: it finishes last.
    loads.finish(plan('new'), 1);
    expect(await after).toEqual(plan('new'));
    loads.finish(plan('old'), 0);
    expect(await before).toEqual(plan('old'));
    expect(await cache.read(scope, 'plan-1', loads.load)).toEqual(plan('new'));
    expect(loads.calls).toBe(2);
  });

  it('keys by project and mode: another scope never gets the entry', async () => {
    const cache = trustedCache();
    await cache.read(scope, 'plan-1', async () => plan('project 1, test'));
    const others = [
      { projectId: 'project-2', livemode: false },
      { projectId: 'project-1', livemode: true },
    ];
    for (const other of others) {
      expect(await cache.read(other, 'plan-1', async () => plan('asked catalog'))).toEqual(plan('asked catalog'));
    }
    // An invalidation names its scope: the other scopes' entries stay.
    cache.invalidate(scope, 'plan-1');
    expect(await cache.read(others[0], 'plan-1', async () => plan('not asked'))).toEqual(plan('asked catalog'));
  });

  it('neither answers from nor stores in the cache while suspended, and resumes empty', async () => {
    const cache = trustedCache();
    const loads = controlledLoads();
    await cache.read(scope, 'plan-1', async () => plan('before the drop'));
    // A load in flight when the connection drops is not stored when it finishes.
    const inFlight = cache.read(scope, 'plan-2', loads.load);
    cache.suspend();
    loads.finish(plan('loaded across the drop'));
    await inFlight;
    expect(cache.size).toBe(0);
    expect(await cache.read(scope, 'plan-1', async () => plan('catalog, while down'))).toEqual(
      plan('catalog, while down'),
    );
    expect(cache.size).toBe(0);
    cache.resume();
    expect(await cache.read(scope, 'plan-1', async () => plan('catalog, once back'))).toEqual(
      plan('catalog, once back'),
    );
    expect(await cache.read(scope, 'plan-1', async () => plan('not asked'))).toEqual(plan('catalog, once back'));
  });

  it('is off until its subscription is confirmed, and with a TTL of 0', async () => {
    const unconfirmed = new PlanReadCache(60_000);
    await unconfirmed.read(scope, 'plan-1', async () => plan('a'));
    expect(unconfirmed.size).toBe(0);
    const off = new PlanReadCache(0);
    off.resume();
    await off.read(scope, 'plan-1', async () => plan('a'));
    expect(await off.read(scope, 'plan-1', async () => plan('b'))).toEqual(plan('b'));
  });

  it('looks in the cache only after its round trip: an announcement applied meanwhile is honoured', async () => {
    const cache = trustedCache();
    await cache.read(scope, 'plan-1', async () => plan('old'));
    let answerRoundTrip: () => void = () => undefined;
    let failRoundTrip: (err: Error) => void = () => undefined;
    cache.synchronizeWith(
      () =>
        new Promise<void>((resolve, reject) => {
          answerRoundTrip = resolve;
          failRoundTrip = reject;
        }),
    );
    const read = cache.read(scope, 'plan-1', async () => plan('new'));
    // The announcement arrives before the round trip's answer, as NATS orders them.
    cache.invalidate(scope, 'plan-1');
    answerRoundTrip();
    expect(await read).toEqual(plan('new'));
    // No answer in time: catalog answers the read.
    const unanswered = cache.read(scope, 'plan-1', async () => plan('from catalog'));
    failRoundTrip(new Error('no NATS round trip'));
    expect(await unanswered).toEqual(plan('from catalog'));
  });

  it('does not remember failures: the next read asks again', async () => {
    const cache = trustedCache();
    await expect(cache.read(scope, 'plan-1', () => Promise.reject(new Error('not found')))).rejects.toThrow(
      'not found',
    );
    expect(await cache.read(scope, 'plan-1', async () => plan('found'))).toEqual(plan('found'));
  });
});
