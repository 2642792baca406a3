import { DomainError } from './errors';

/**
 * Runs at most `concurrency` tasks at a time and lets at most `queueLength` more wait; a task
 * beyond that is refused at once with `resource_exhausted` (429 at the gateway). For work whose
 * cost per task is large and fixed, such as memory-hard password hashing, where letting every
 * caller in would exhaust the process. With an unbounded queue, the slots of the billing
 * scheduler's provider calls in flight, shared by its batches.
 */
export class BoundedConcurrency {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queueLength: number,
    private readonly refusal: string,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be at least 1');
    if (!Number.isInteger(queueLength) || queueLength < 0) throw new Error('queueLength must be 0 or more');
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueLength) throw new DomainError('resource_exhausted', this.refusal);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer can't overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
