import { BoundedConcurrency, DomainError } from '../src';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('BoundedConcurrency', () => {
  it('runs at most `concurrency` tasks, queues `queueLength` more and refuses the next', async () => {
    const gate = new BoundedConcurrency(2, 1, 'busy');
    const release = [deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const task = (i: number) => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await release[i].promise;
      running -= 1;
      return i;
    };
    const runs = [0, 1, 2].map((i) => gate.run(task(i)));
    await expect(gate.run(task(0))).rejects.toEqual(new DomainError('resource_exhausted', 'busy'));
    expect(gate.active).toBe(2);
    expect(gate.queued).toBe(1);

    release.forEach((r) => r.resolve());
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(peak).toBe(2);
    expect(gate.active).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const gate = new BoundedConcurrency(1, 0, 'busy');
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(async () => 'ok')).resolves.toBe('ok');
  });
});
