import { eventSubject, type EventEnvelope, type Logger, type NatsConnection } from '@billing/platform';
import type { ApiKeyCache } from './api-key-cache';

/**
 * Identity publishes `api_key.revoked`, `api_key.updated` and `merchant.deactivated` through its
 * outbox. Every gateway replica listens (plain NATS subscription: each replica must see every
 * message) and drops the affected cache entries, so a revoked key stops working everywhere
 * within the event's delivery time instead of the cache TTL.
 */
export function listenForKeyRevocations(
  nats: NatsConnection,
  subjectPrefix: string,
  cache: ApiKeyCache,
  logger: Logger,
): () => void {
  const subjects = ['api_key.revoked', 'api_key.updated', 'merchant.deactivated'].map((eventType) =>
    eventSubject(subjectPrefix, eventType),
  );
  const subscriptions = subjects.map((subject) =>
    nats.subscribe(subject, {
      callback: (err, msg) => {
        if (err) {
          logger.warn({ err, subject }, 'key revocation subscription error');
          return;
        }
        try {
          const envelope = msg.json<EventEnvelope<{ api_key_id?: string; merchant_id?: string }>>();
          if (envelope.event === 'merchant.deactivated' && envelope.data.merchant_id)
            cache.evictMerchant(envelope.data.merchant_id);
          else if (envelope.data.api_key_id) cache.evictKey(envelope.data.api_key_id);
        } catch (parseError) {
          logger.warn({ err: parseError, subject }, 'unreadable identity event');
        }
      },
    }),
  );
  return () => subscriptions.forEach((s) => s.unsubscribe());
}
