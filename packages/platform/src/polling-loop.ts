import type { Logger } from './logger';

export interface PollingLoop {
  /** Runs one pass now (tests, and callers that know work just became due). */
  runNow(): Promise<void>;
  /** Stops after the pass in progress, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs` (never two at once in this process; replicas coordinate through
 * the rows they claim with SKIP LOCKED). A failing pass is logged and retried next time.
 */
export function startPollingLoop(
  name: string,
  intervalMs: number,
  pass: () => Promise<unknown>,
  logger: Logger,
): PollingLoop {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const runOnce = () => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await pass();
      } catch (err) {
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
