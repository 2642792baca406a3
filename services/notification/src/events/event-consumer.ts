import { AckPolicy, DeliverPolicy, nanos, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { ensureEventStream, type EventEnvelope, type Logger } from '@billing/platform';

export interface EventConsumerOptions {
  nats: NatsConnection;
  stream: string;
  subjectPrefix: string;
  /** Shared by every replica: JetStream hands each message to one of them. */
  durableName: string;
  logger: Logger;
  /** Turns a batch of events into deliveries; must be idempotent (a batch may come again). */
  handle(events: EventEnvelope[]): Promise<unknown>;
}

const BATCH = 256;
/** A batch not acked in this time comes again (to this or another replica). */
const ACK_WAIT_MS = 30_000;

/**
 * The durable JetStream pull consumer of every domain event, shared by the replicas. Each batch
 * is handed to `handle` and acked only after it returned, so a crash in between redelivers it;
 * the handler's idempotence makes that harmless. The nats client re-pulls by itself after a
 * NATS restart. A message that is not an event envelope is logged and acked
 * (it would never become one).
 */
export class EventConsumer {
  private messages?: ConsumerMessages;
  /** Messages received and not yet handled; flushed as one batch whenever the handler is free. */
  private buffer: JsMsg[] = [];
  private flushing?: Promise<void>;
  private stopped = false;

  constructor(private readonly options: EventConsumerOptions) {}

  async start(): Promise<void> {
    const { nats, stream, subjectPrefix, durableName } = this.options;
    await ensureEventStream(nats, stream, subjectPrefix);
    const jsm = await nats.jetstreamManager();
    await jsm.consumers.add(stream, {
      durable_name: durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${subjectPrefix}.>`,
      ack_wait: nanos(ACK_WAIT_MS),
      max_ack_pending: BATCH * 8,
    });
    const consumer = await nats.jetstream().consumers.get(stream, durableName);
    // Continuous pull: each message is handed over as it arrives (a fetch would wait for a full
    // batch or its expiry, which is latency at low rates); batching happens in flush().
    this.messages = await consumer.consume({
      max_messages: BATCH * 2,
      callback: (message) => {
        this.buffer.push(message);
        this.flushing ??= this.flush();
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.flushing;
  }

  /** Handles what has arrived, batch after batch, until nothing is waiting. */
  private async flush(): Promise<void> {
    const { logger } = this.options;
    while (this.buffer.length > 0 && !this.stopped) {
      const batch = this.buffer.splice(0, BATCH);
      try {
        await this.options.handle(envelopesOf(batch, logger));
        for (const message of batch) message.ack();
      } catch (err) {
        // The database away: no ack, so JetStream hands the batch over again after ACK_WAIT_MS.
        logger.warn({ err, events: batch.length }, 'events not turned into deliveries; they will come again');
        for (const message of batch) message.nak(1000);
      }
    }
    this.flushing = undefined;
  }
}

function envelopesOf(messages: JsMsg[], logger: Logger): EventEnvelope[] {
  const envelopes: EventEnvelope[] = [];
  for (const message of messages) {
    try {
      const envelope = message.json<EventEnvelope>();
      if (typeof envelope?.id === 'string' && typeof envelope.event === 'string') envelopes.push(envelope);
      else logger.warn({ subject: message.subject }, 'not an event envelope; skipped');
    } catch {
      logger.warn({ subject: message.subject }, 'unreadable event; skipped');
    }
  }
  return envelopes;
}
