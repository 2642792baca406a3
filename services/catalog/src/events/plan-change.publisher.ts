import { cacheInvalidationSubject, DomainError, type NatsConnection, type ProjectScope } from '@billing/platform';

/** How long a write waits for the NATS server to take its announcement before it fails. */
const ANNOUNCE_TIMEOUT_MS = 2000;

/**
 * Tells every gateway replica that a plan changed, so that each drops its cached read of it
 * (docs/decisions.md, "Plan reads cached in the gateway"). Called after the change is committed
 * and before the write is answered: once the NATS server has acknowledged the message (a
 * flush round trip) it has routed it to every subscribed replica's connection, so the writer's
 * next read, on any replica, comes after it. A change committed but not announced is answered
 * UNAVAILABLE: the caller retries the same write, which announces it again.
 */
export class PlanChangePublisher {
  private readonly subject: string;

  constructor(
    private readonly nats: NatsConnection,
    eventsPrefix: string,
  ) {
    this.subject = cacheInvalidationSubject(eventsPrefix, 'plan');
  }

  async announce(scope: ProjectScope, planId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      this.nats.publish(
        this.subject,
        JSON.stringify({ project_id: scope.projectId, livemode: scope.livemode, plan_id: planId }),
      );
      await Promise.race([
        this.nats.flush(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('NATS flush timed out')), ANNOUNCE_TIMEOUT_MS);
        }),
      ]);
    } catch {
      throw new DomainError('unavailable', 'The plan change is saved but could not be announced; send it again');
    } finally {
      clearTimeout(timer);
    }
  }
}
