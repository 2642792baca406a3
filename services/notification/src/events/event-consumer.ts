import { AckPolicy, DeliverPolicy, nanos, type JsMsg, type NatsConnection } from 'nats';
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
 * The durable JetStream pull consumer of every domain event. Each batch is handed to `handle`
 * and acked only after it returned, so a crash in between redelivers it; the handler's
 * idempotence makes that harmless. A message that is not an event envelope is logged and acked
 * (it would never become one).
 */
export class EventConsumer {
  private running = false;
  private loop?: Promise<void>;

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
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { nats, stream, durableName, logger } = this.options;
    while (this.running) {
      try {
        const consumer = await nats.jetstream().consumers.get(stream, durableName);
        while (this.running) {
          const batch = await consumer.fetch({ max_messages: BATCH, expires: 1000 });
          const messages: JsMsg[] = [];
          for await (const message of batch) messages.push(message);
          if (messages.length === 0) continue;
          await this.options.handle(envelopesOf(messages, logger));
          for (const message of messages) message.ack();
        }
      } catch (err) {
        if (!this.running) return;
        // NATS restarting, the database away: the unacked batch comes again; try again shortly.
        logger.warn({ err }, 'event consumer interrupted; resuming');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
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
