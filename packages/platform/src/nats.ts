import {
  connect,
  Events,
  headers as natsHeaders,
  nanos,
  RetentionPolicy,
  StorageType,
  type NatsConnection,
} from 'nats';

import { registerNatsConnectionMetrics } from './metrics';

export { natsHeaders };
export type { NatsConnection };

/**
 * Subjects of domain events: `<prefix>.<entity>.<verb>`, e.g. `events.invoice.paid`. Streams
 * may not overlap in subjects, so each deployment (and each test run) has its own prefix.
 */
export const eventSubject = (prefix: string, eventType: string) => `${prefix}.${eventType}`;

/**
 * Subject of the messages that tell every gateway replica to drop cached reads of an entity
 * (`cache.<events prefix>.<entity>.changed`, docs/decisions.md, "Plan reads cached in the
 * gateway"). Plain NATS, not the events stream: a replica that was not connected when one was
 * sent has cleared its cache anyway, so nothing needs storing. The events prefix keeps
 * deployments (and test runs) sharing a NATS server apart; the leading `cache.` keeps the
 * subject outside the stream's `<prefix>.>`.
 */
export const cacheInvalidationSubject = (eventsPrefix: string, entity: string) =>
  `cache.${eventsPrefix}.${entity}.changed`;

/**
 * Tells a holder of NATS-invalidated state when it may trust its subscriptions: `lost` as soon
 * as the connection drops (messages may be missed from then on), `restored` once it is back and
 * a round trip has confirmed that the server has this client's subscriptions again (nats.js
 * sends them before anything else on reconnect). `lost` is called again when the connection
 * closes for good. Returns a function that stops watching.
 */
export function watchNatsConnection(nc: NatsConnection, handlers: { lost(): void; restored(): void }): () => void {
  // Bumped by every change, so that a flush answered after a later drop restores nothing.
  let epoch = 0;
  let watching = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (!watching) break;
      if (status.type === Events.Disconnect) {
        epoch++;
        handlers.lost();
      } else if (status.type === Events.Reconnect) {
        const reconnected = ++epoch;
        handlers.lost();
        nc.flush().then(
          () => {
            if (watching && reconnected === epoch && !nc.isClosed()) handlers.restored();
          },
          // Dropped again before the round trip: the next reconnect restores.
          () => undefined,
        );
      }
    }
  })();
  void nc.closed().then(() => {
    epoch++;
    if (watching) handlers.lost();
  });
  return () => {
    watching = false;
    epoch++;
  };
}

/**
 * A NATS round trip that starts after the call: once it resolves, every message the server had
 * routed to this connection before the caller asked has been handed to its subscriptions (the
 * server answers a PING on the connection it came in on, after what it queued there before;
 * nats.js runs subscription callbacks as it parses, before the PONG's promise settles). With one
 * NATS server, a message whose publisher's flush had returned before this call is therefore seen.
 * Calls in one turn of the event loop share one PING; a round trip not answered within
 * `timeoutMs` rejects.
 */
export function natsRoundTrips(nc: NatsConnection, timeoutMs: number): () => Promise<void> {
  let next: Promise<void> | undefined;
  return () => {
    // Sent on the next turn, after every caller of this turn: none shares a PING sent before it asked.
    next ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        next = undefined;
        const timer = setTimeout(() => reject(new Error(`no NATS round trip in ${timeoutMs} ms`)), timeoutMs);
        nc.flush().then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
    });
    return next;
  };
}

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  // noAsyncTraces: every JetStream publish is a request, and capturing a stack trace for each
  // (in case it times out) was measured at a tenth of an outbox relay's CPU.
  const nc = await connect({
    servers: url,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    noAsyncTraces: true,
  });
  registerNatsConnectionMetrics(nc, name);
  return nc;
}

/**
 * Creates the events stream when missing. Publishers set Nats-Msg-Id = event id, so a row the
 * outbox relay publishes twice (crash between publish and marking it sent) is stored once.
 */
export async function ensureEventStream(nc: NatsConnection, stream: string, subjectPrefix: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const config = {
    name: stream,
    subjects: [`${subjectPrefix}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(10 * 60 * 1000),
    max_age: nanos(7 * 24 * 60 * 60 * 1000),
  };
  try {
    await jsm.streams.info(stream);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (err) {
      // Another process created it meanwhile.
      await jsm.streams.info(stream).catch(() => {
        throw err;
      });
    }
  }
}
