import type { Logger } from './logger';

/**
 * Runs a process until SIGTERM/SIGINT, then calls `stop` once (stop accepting, drain, close
 * pools). A second signal, or a stop that takes longer than `graceMs`, exits at once. The
 * default keeps the whole stop within the 10 s docs/deployment.md promises ("Stopping").
 */
export function runUntilSignalled(logger: Logger, stop: () => Promise<void>, graceMs = 9_500): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Logs a start-up failure plainly and exits non-zero (a supervisor restarts us). */
export function exitOnStartupFailure(logger: Logger) {
  return (err: unknown) => {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  };
}

/** True while a process of this machine with that pid exists (signal 0 checks without sending). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
