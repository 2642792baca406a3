import type { Logger } from './logger';
import { counter } from './metrics';
import { inSpan, ROOT_CONTEXT } from './spans';

/**
 * Finished passes of each loop, by outcome: an operator sees a loop stuck or failing, and a test
 * waits for "two more passes" of a loop instead of a guessed sleep.
 */
const passes = counter('polling_loop_passes_total', 'Passes of a polling loop, finished', ['loop', 'outcome']);

export interface PollingLoop {
  /** Runs one pass now (tests, and callers that know work just became due). */
  runNow(): Promise<void>;
  /** Stops after the pass in progress, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs` (never two at once in this process; replicas coordinate through
 * the rows they claim with SKIP LOCKED). A failing pass is logged and retried next time. Each
 * pass is the root span of a trace of its own (`<name> pass`), also when a request woke it: the
 * work it finds is not that request's.
 */
export function startPollingLoop(
  name: string,
  intervalMs: number,
  pass: () => Promise<unknown>,
  logger: Logger,
): PollingLoop {
  let running: Promise<void> = Promise.resolve();
  /** A pass queued and not started yet: it will see whatever work is due when it starts. */
  let queued: Promise<void> | undefined;
  let stopped = false;
  // Wake-ups coalesce: a burst of them (one per consumed batch of events, hundreds a second)
  // queues one pass behind the running one, not one each, which had passes queue up behind
  // each other, each a query finding nothing, and delayed the work (docs/benchmarks.md, webhooks).
  const runOnce = () => {
    if (queued) return queued;
    queued = running = running.then(async () => {
      queued = undefined;
      if (stopped) return;
      try {
        await inSpan(`${name} pass`, { parent: ROOT_CONTEXT, attributes: { 'scheduler.loop': name } }, pass);
        passes.inc({ loop: name, outcome: 'ok' });
      } catch (err) {
        passes.inc({ loop: name, outcome: 'failed' });
        logger.warn({ err, loop: name }, 'scheduled pass failed; retrying next interval');
      }
    });
    return running;
  };
  const timer = setInterval(runOnce, intervalMs);
  timer.unref();
  return {
    runNow: runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
