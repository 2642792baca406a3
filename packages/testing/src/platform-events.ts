import type { EventEnvelope, NatsConnection } from '@billing/platform';
import { TEST_NATS_URL } from './databases';
import { heavyPlatform } from './platform-processes';
import type { PlatformUnderTest } from './start-platform';

/** An event as a platform's outbox relay published it, with its place in the stream. */
export interface PublishedEvent<T> {
  envelope: EventEnvelope<T>;
  /** The stream sequence of its message. */
  seq: number;
}

/**
 * Reads the event stream of a running platform (`EVENTS_<run id>`), as a consumer of the
 * platform would: for tests of what a service publishes, and of how a consumer treated it.
 * Each read has an ordered consumer of its own that starts at the stream's beginning, so it
 * sees what was published before it was asked.
 */
export interface PlatformEvents {
  /** The first event of `type` that `matches`, waiting up to `timeoutMs` for it to be published. */
  waitFor<T>(
    type: string,
    matches: (envelope: EventEnvelope<T>) => boolean,
    timeoutMs?: number,
  ): Promise<PublishedEvent<T>>;
  /** Every event of `type` published so far that `matches`, oldest first. */
  all<T>(type: string, matches: (envelope: EventEnvelope<T>) => boolean): Promise<PublishedEvent<T>[]>;
  /** Waits until the durable consumer `durableName` has acked every message of the stream up to `seq`. */
  waitForAcked(durableName: string, seq: number, timeoutMs?: number): Promise<void>;
  /**
   * Publishes an event onto the stream as an outbox relay does, with the message id `messageId`
   * (default: the event's id, which JetStream de-duplicates for ten minutes; another one is a
   * replay's). Returns its stream sequence. For tests of how a consumer takes an event that
   * came late, again, or broken.
   */
  publish(envelope: EventEnvelope, messageId?: string): Promise<number>;
  close(): Promise<void>;
}

type StreamOf = Pick<PlatformUnderTest, 'eventsStream' | 'eventsSubjectPrefix'>;

export async function platformEvents(platform: StreamOf): Promise<PlatformEvents> {
  const { connectNats, eventSubject } = await heavyPlatform();
  const nats: NatsConnection = await connectNats(TEST_NATS_URL, 'test-platform-events');
  const subjectOf = (type: string) => eventSubject(platform.eventsSubjectPrefix, type);
  /** The stream sequence of the last event of `type` published so far; 0 for none. */
  const lastSeqOf = async (type: string): Promise<number> => {
    const jsm = await nats.jetstreamManager();
    const last = await jsm.streams
      .getMessage(platform.eventsStream, { last_by_subj: subjectOf(type) })
      .catch(() => null);
    return last?.seq ?? 0;
  };
  /** Events of `type` that match, from the stream's start until `done` says so or `until` passes. */
  const read = async <T>(
    type: string,
    matches: (envelope: EventEnvelope<T>) => boolean,
    done: (found: PublishedEvent<T>[], seq: number) => boolean,
    until: number,
  ): Promise<PublishedEvent<T>[]> => {
    const consumer = await nats.jetstream().consumers.get(platform.eventsStream, { filterSubjects: subjectOf(type) });
    const found: PublishedEvent<T>[] = [];
    try {
      while (Date.now() < until) {
        // 1 s is the shortest wait nats.js allows a fetch; it ends early once `done` holds.
        for await (const message of await consumer.fetch({ max_messages: 256, expires: 1000 })) {
          const envelope = message.json<EventEnvelope<T>>();
          if (matches(envelope)) found.push({ envelope, seq: message.seq });
          if (done(found, message.seq)) return found;
        }
      }
      return found;
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  };
  return {
    async waitFor(type, matches, timeoutMs = 15_000) {
      const [first] = await read(type, matches, (found) => found.length > 0, Date.now() + timeoutMs);
      if (!first) throw new Error(`no ${type} event matched within ${timeoutMs} ms`);
      return first;
    },
    async all(type, matches) {
      const last = await lastSeqOf(type);
      if (last === 0) return [];
      return read(type, matches, (_found, seq) => seq >= last, Date.now() + 15_000);
    },
    async waitForAcked(durableName, seq, timeoutMs = 15_000) {
      const jsm = await nats.jetstreamManager();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await jsm.consumers.info(platform.eventsStream, durableName);
        if (info.ack_floor.stream_seq >= seq) return;
        if (Date.now() > deadline) {
          throw new Error(`${durableName} acked up to ${info.ack_floor.stream_seq}, not ${seq}, in ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async publish(envelope, messageId = envelope.id) {
      const ack = await nats.jetstream().publish(subjectOf(envelope.event), JSON.stringify(envelope), {
        msgID: messageId,
      });
      return ack.seq;
    },
    close: () => nats.drain(),
  };
}
