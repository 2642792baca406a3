import { register } from 'prom-client';
import { createLogger, startPollingLoop } from '../src';

describe('startPollingLoop', () => {
  const logger = createLogger('polling-loop-test', 'silent');

  it('runs one pass at a time, and a burst of wake-ups queues one pass behind the running one', async () => {
    let passes = 0;
    let concurrent = 0;
    let mostConcurrent = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const loop = startPollingLoop(
      'test',
      60_000,
      async () => {
        passes += 1;
        concurrent += 1;
        mostConcurrent = Math.max(mostConcurrent, concurrent);
        if (passes === 1) await gate;
        concurrent -= 1;
      },
      logger,
    );
    const first = loop.runNow();
    await new Promise((resolve) => setImmediate(resolve));
    // 100 wake-ups while the first pass runs: one more pass, which starts after all of them.
    const wakes = Array.from({ length: 100 }, () => loop.runNow());
    release();
    await Promise.all([first, ...wakes]);
    expect(passes).toBe(2);
    expect(mostConcurrent).toBe(1);
    // A wake-up after that is a pass of its own.
    await loop.runNow();
    expect(passes).toBe(3);
    await loop.stop();
  });

  it('counts its finished passes by outcome in polling_loop_passes_total', async () => {
    const count = async (outcome: string) =>
      (await register.getSingleMetric('polling_loop_passes_total')!.get()).values.find(
        (v) => v.labels.loop === 'counted' && v.labels.outcome === outcome,
      )?.value ?? 0;
    let fail = false;
    const loop = startPollingLoop(
      'counted',
      60_000,
      async () => {
        if (fail) throw new Error('this pass fails');
      },
      logger,
    );
    await loop.runNow();
    await loop.runNow();
    fail = true;
    await loop.runNow();
    expect([await count('ok'), await count('failed')]).toEqual([2, 1]);
    await loop.stop();
  });
});
