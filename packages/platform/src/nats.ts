import { connect, headers as natsHeaders, nanos, RetentionPolicy, StorageType, type NatsConnection } from 'nats';

export { natsHeaders };
export type { NatsConnection };

/**
 * Subjects of domain events: `<prefix>.<entity>.<verb>`, e.g. `events.invoice.paid`. Streams
 * may not overlap in subjects, so each deployment (and each test run) has its own prefix.
 */
export const eventSubject = (prefix: string, eventType: string) => `${prefix}.${eventType}`;

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  // noAsyncTraces: every JetStream publish is a request, and capturing a stack trace for each
  // (in case it times out) was measured at a tenth of an outbox relay's CPU.
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true });
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
