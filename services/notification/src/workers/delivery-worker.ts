import type { Logger } from '@billing/platform';
import type { AttemptTracker } from '../delivery/delivery-attempts';
import type { WebhookDeps } from '../notification-deps';
import { startDueDeliveries } from '../usecases/deliveries/start-due-deliveries.usecase';

/** Attempts in flight in one process at most; the rest wait in the table, due. */
const MAX_IN_FLIGHT = 2_000;

/**
 * Keeps the attempts a process has started, so a pass never waits for a receiver and drain()
 * lets the ones under way finish; those still waiting on a receiver after the grace period are
 * cut off and their deliveries released, so that the process stops in time and another worker
 * sends them at once.
 */
export class DeliveryWorker implements AttemptTracker {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: WebhookDeps,
    private readonly logger: Logger,
  ) {}

  /** One pass: starts as many due deliveries as there is room for. */
  pass(): Promise<number> {
    return startDueDeliveries(this.deps, this);
  }

  room(): number {
    return MAX_IN_FLIGHT - this.inFlight.size;
  }

  track(attempt: Promise<unknown>): void {
    const tracked = attempt
      .catch((err: unknown) => this.logger.error({ err }, 'delivery attempt not recorded; retried after its lease'))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  async drain(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all([...this.inFlight]), graceOver]);
    clearTimeout(timer);
    if (this.inFlight.size === 0) return;
    this.logger.warn({ attempts: this.inFlight.size }, 'stopping: delivery attempts cut off and released');
    this.deps.http.abandonAttempts();
    await Promise.all([...this.inFlight]);
  }
}
