import {
  cacheInvalidationSubject,
  natsRoundTrips,
  watchNatsConnection,
  type Logger,
  type NatsConnection,
} from '@billing/platform';
import type { PlanReadCache } from './plan-read-cache';

/** What catalog sends on `cache.<prefix>.plan.changed` (services/catalog/src/events/plan-change.publisher.ts). */
interface PlanChanged {
  project_id?: unknown;
  livemode?: unknown;
  plan_id?: unknown;
}

/** A read waits at most this long for its NATS round trip, then asks catalog instead. */
const ROUND_TRIP_TIMEOUT_MS = 250;

/**
 * Keeps this replica's plan cache as fresh as catalog's writes: every replica subscribes (plain
 * NATS, so each one gets every message) and drops the entry a change names. The cache is only
 * used while the subscription is known to be live: suspended when the connection drops, resumed
 * empty once a reconnect is confirmed (docs/decisions.md, "Plan reads cached in the gateway").
 */
export async function listenForPlanChanges(
  nats: NatsConnection,
  eventsPrefix: string,
  cache: PlanReadCache,
  logger: Logger,
): Promise<() => void> {
  const subject = cacheInvalidationSubject(eventsPrefix, 'plan');
  const subscription = nats.subscribe(subject, {
    callback: (err, msg) => {
      if (err) {
        logger.warn({ err, subject }, 'plan change subscription error; plan cache cleared');
        cache.clear();
        return;
      }
      try {
        const change = msg.json<PlanChanged>();
        if (
          typeof change.project_id === 'string' &&
          typeof change.livemode === 'boolean' &&
          typeof change.plan_id === 'string'
        ) {
          cache.invalidate({ projectId: change.project_id, livemode: change.livemode }, change.plan_id);
          return;
        }
        logger.warn({ subject }, 'plan change without project_id, livemode and plan_id; plan cache cleared');
      } catch (parseError) {
        logger.warn({ err: parseError, subject }, 'unreadable plan change; plan cache cleared');
      }
      // A change we cannot place could be any plan's.
      cache.clear();
    },
  });
  const stopWatching = watchNatsConnection(nats, {
    lost: () => {
      cache.suspend();
      logger.warn('NATS connection lost: plan reads are not cached until it is back');
    },
    restored: () => {
      cache.resume();
      logger.info('NATS connection back: plan reads cached again, from an empty cache');
    },
  });
  cache.synchronizeWith(natsRoundTrips(nats, ROUND_TRIP_TIMEOUT_MS));
  // The subscription is live once the server has answered a round trip sent after it.
  await nats.flush();
  cache.resume();
  return () => {
    stopWatching();
    subscription.unsubscribe();
  };
}
