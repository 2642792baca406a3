import {
  connect,
  DiscardPolicy,
  Events,
  headers as natsHeaders,
  nanos,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import { natsEnvSchema, type NatsEnv } from './config';
import type { Logger } from './logger';

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
 * The events stream as the settings describe it (natsEnvSchema): one object, carried from a
 * process's config to every place that makes sure the stream exists.
 */
export interface EventStreamSettings {
  name: string;
  subjectPrefix: string;
  replicas: number;
  /** Per server; undefined: no cap. */
  maxBytes?: number;
  maxAgeMs: number;
  discard: 'new' | 'old';
  placement?: { cluster?: string; tags?: string[] };
}

export function eventStreamSettings(
  config: Pick<
    NatsEnv,
    | 'EVENTS_STREAM'
    | 'EVENTS_SUBJECT_PREFIX'
    | 'EVENTS_STREAM_REPLICAS'
    | 'EVENTS_STREAM_MAX_BYTES'
    | 'EVENTS_STREAM_MAX_AGE_MS'
    | 'EVENTS_STREAM_DISCARD'
    | 'EVENTS_STREAM_PLACEMENT_CLUSTER'
    | 'EVENTS_STREAM_PLACEMENT_TAGS'
  >,
): EventStreamSettings {
  const placed =
    config.EVENTS_STREAM_PLACEMENT_CLUSTER !== undefined || config.EVENTS_STREAM_PLACEMENT_TAGS !== undefined;
  return {
    name: config.EVENTS_STREAM,
    subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
    replicas: config.EVENTS_STREAM_REPLICAS,
    maxBytes: config.EVENTS_STREAM_MAX_BYTES,
    maxAgeMs: config.EVENTS_STREAM_MAX_AGE_MS,
    discard: config.EVENTS_STREAM_DISCARD,
    placement: placed
      ? { cluster: config.EVENTS_STREAM_PLACEMENT_CLUSTER, tags: config.EVENTS_STREAM_PLACEMENT_TAGS }
      : undefined,
  };
}

/** The settings of a stream named `name` on `subjectPrefix`, every other setting at its default (tests, benchmarks). */
export function defaultEventStreamSettings(name: string, subjectPrefix: string): EventStreamSettings {
  return eventStreamSettings(natsEnvSchema.parse({ EVENTS_STREAM: name, EVENTS_SUBJECT_PREFIX: subjectPrefix }));
}

/** The part of a stream's configuration the settings decide, which a live stream can be changed to. */
function limitsOf(settings: EventStreamSettings): Partial<StreamConfig> {
  return {
    num_replicas: settings.replicas,
    // -1: no cap (JetStream's own value for it).
    max_bytes: settings.maxBytes ?? -1,
    max_age: nanos(settings.maxAgeMs),
    discard: settings.discard === 'new' ? DiscardPolicy.New : DiscardPolicy.Old,
    placement: settings.placement && {
      cluster: settings.placement.cluster ?? '',
      tags: settings.placement.tags ?? [],
    },
  };
}

/** What differs between the stream's configuration and the settings, as `field: from -> to`. */
function differences(current: StreamConfig, wanted: Partial<StreamConfig>): string[] {
  const placementOf = (config: Partial<StreamConfig>) => ({
    cluster: config.placement?.cluster ?? '',
    tags: [...(config.placement?.tags ?? [])].sort(),
  });
  const compared: [string, unknown, unknown][] = [
    ['num_replicas', current.num_replicas, wanted.num_replicas],
    ['max_bytes', current.max_bytes, wanted.max_bytes],
    ['max_age', current.max_age, wanted.max_age],
    ['discard', current.discard, wanted.discard],
    ['placement', placementOf(current), placementOf(wanted)],
  ];
  return compared
    .filter(([, from, to]) => JSON.stringify(from) !== JSON.stringify(to))
    .map(([field, from, to]) => `${field}: ${JSON.stringify(from)} -> ${JSON.stringify(to)}`);
}

/**
 * Creates the events stream when missing, and brings an existing one to the settings (replicas,
 * byte cap, age, discard policy, placement: NATS 2.9 changes each on a live stream, copying it
 * to the servers it adds), logging what changed. Publishers set Nats-Msg-Id = event id, so a
 * row the outbox relay publishes twice (crash between publish and marking it sent) is stored
 * once. A change the cluster cannot make (more replicas than servers) fails the start: the
 * settings promise a durability the stream would not have.
 */
export async function ensureEventStream(
  nc: NatsConnection,
  settings: EventStreamSettings,
  logger: Logger,
): Promise<{ created: boolean; changed: string[] }> {
  const jsm = await nc.jetstreamManager();
  const limits = limitsOf(settings);
  const existing = await jsm.streams.info(settings.name).catch(() => undefined);
  if (!existing) {
    try {
      await jsm.streams.add({
        name: settings.name,
        subjects: [`${settings.subjectPrefix}.>`],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        duplicate_window: nanos(10 * 60 * 1000),
        ...limits,
      });
      logger.info({ stream: settings.name, replicas: settings.replicas }, 'events stream created');
      return { created: true, changed: [] };
    } catch (err) {
      // Another process created it meanwhile; it is brought to the settings below like any.
      const raced = await jsm.streams.info(settings.name).catch(() => undefined);
      if (!raced) throw err;
      return { created: false, changed: await bringToSettings(jsm, raced.config, limits, logger) };
    }
  }
  return { created: false, changed: await bringToSettings(jsm, existing.config, limits, logger) };
}

async function bringToSettings(
  jsm: JetStreamManager,
  current: StreamConfig,
  limits: Partial<StreamConfig>,
  logger: Logger,
): Promise<string[]> {
  const changed = differences(current, limits);
  if (changed.length === 0) return [];
  try {
    await jsm.streams.update(current.name, { ...current, ...limits });
  } catch (err) {
    throw new Error(
      `the events stream ${current.name} could not be changed (${changed.join('; ')}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  logger.warn({ stream: current.name, changed }, 'events stream changed to the settings');
  return changed;
}
