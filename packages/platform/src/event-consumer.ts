import type { TextMapGetter } from '@opentelemetry/api';
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type ConsumerMessages,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
} from 'nats';
import { z } from 'zod';
import type { Logger } from './logger';
import { registerParkedEventsMetrics } from './metrics';
import { ensureEventStream, eventSubject, type EventStreamSettings } from './nats';
import type { EventEnvelope } from './outbox';
import type { ParkedEvents } from './parked-events';
import { contextOfTraceHeaders, inSpan, recordSpanError, SpanKind, startSpan, type Context, type Span } from './spans';

/** Settings of every event consumer (README, Configuration). */
export const eventConsumerEnvSchema = z.object({
  /** Deliveries of one event whose handling fails before it is parked. */
  EVENT_MAX_DELIVERIES: z.coerce.number().int().min(1).max(100).default(5),
  /** Wait before the second delivery of a failed event; doubled for each later one (max 1 min). */
  EVENT_REDELIVERY_DELAY_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
});

export interface EventConsumerOptions {
  nats: NatsConnection;
  /** Made sure of at start, as the settings describe it (natsEnvSchema, eventStreamSettings). */
  stream: EventStreamSettings;
  /** Shared by every replica: JetStream hands each message to one of them. */
  durableName: string;
  /**
   * Only events of this type (one filter subject, which NATS 2.9 serves); every event when
   * unset. A consumer of one internal event is then not handed the whole stream to ack.
   */
  eventType?: string;
  logger: Logger;
  /** Where events that keep failing go (the consuming service's database). */
  parked: ParkedEvents;
  maxDeliveries: number;
  redeliveryDelayMs: number;
  now(): Date;
  /**
   * Turns a batch of events into the service's work; must be idempotent (a batch may come
   * again). `traces[i]` is the trace context of `events[i]` (its consumer span), for work done
   * later on its behalf, such as a webhook delivery.
   */
  handle(events: EventEnvelope[], traces: Context[]): Promise<unknown>;
}

const BATCH = 256;
/** A batch not acked in this time comes again (to this or another replica). */
const ACK_WAIT_MS = 30_000;
const MAX_REDELIVERY_DELAY_MS = 60_000;
/**
 * When a batch fails, its events are handled one by one to find the bad one. If the first ones
 * all fail alone too, the cause is likely a dependency (the database away), not the events: the
 * rest of the batch comes again later instead of costing a failing call each.
 */
const SINGLE_FAILURES_BEFORE_GIVING_UP_ON_BATCH = 2;

interface Received {
  message: JsMsg;
  envelope: EventEnvelope;
  /** The event's consumer span, child of the span that published it; ends once it is settled. */
  span: Span;
  trace: Context;
}

/**
 * A durable JetStream pull consumer of every domain event, shared by the replicas. Events are
 * handed to `handle` in batches and each is acked only after it was handled, so a crash in
 * between redelivers it. One bad event fails alone: when a batch fails, its events are handled
 * one by one and only those that fail are naked (redelivered after a growing delay). An event
 * that has failed on its last allowed delivery, and a message that is not an event envelope, is
 * parked (kept in the parked_events table and logged with its id and subject) and then acked,
 * so it never holds back the events after it. Parking needs the database: while the database
 * is away nothing is parked and everything comes again. Nothing here needs NATS 2.10+.
 */
export class EventConsumer {
  private messages?: ConsumerMessages;
  /** Messages received and not yet handled; flushed batch after batch whenever the handler is free. */
  private buffer: JsMsg[] = [];
  private flushing?: Promise<void>;
  private stopped = false;

  constructor(private readonly options: EventConsumerOptions) {}

  async start(): Promise<void> {
    const { nats, durableName, eventType, logger } = this.options;
    const { name: stream, subjectPrefix } = this.options.stream;
    await ensureEventStream(nats, this.options.stream, logger);
    registerParkedEventsMetrics(this.options.parked, durableName, logger);
    const jsm = await nats.jetstreamManager();
    // No max_deliver: JetStream would drop the event from the consumer silently; the consumer
    // counts deliveries itself and parks the event where it can be inspected and replayed.
    await jsm.consumers.add(stream, {
      durable_name: durableName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: eventType ? eventSubject(subjectPrefix, eventType) : `${subjectPrefix}.>`,
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
        // On the next turn, so that the messages of one pull response make one batch.
        this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
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
    while (this.buffer.length > 0 && !this.stopped) {
      const received: Received[] = [];
      for (const message of this.buffer.splice(0, BATCH)) {
        const envelope = envelopeOf(message);
        if (envelope) received.push({ message, envelope, ...this.consumerSpan(message, envelope) });
        else await this.park(message, null, new Error('not an event envelope'));
      }
      if (received.length === 0) continue;
      try {
        await this.handleBatch(received);
      } finally {
        for (const { span } of received) span.end();
      }
    }
    this.flushing = undefined;
  }

  /** Continues the trace the message carries (docs/decisions.md, "One trace per request"). */
  private consumerSpan(message: JsMsg, envelope: EventEnvelope): { span: Span; trace: Context } {
    const { span, context } = startSpan(`process ${message.subject}`, {
      kind: SpanKind.CONSUMER,
      parent: contextOfTraceHeaders(message.headers, natsHeaderGetter),
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': message.subject,
        'messaging.consumer.group.name': this.options.durableName,
        'messaging.message.id': envelope.id,
        'messaging.nats.delivery_count': message.info.deliveryCount,
      },
    });
    return { span, trace: context };
  }

  /**
   * Runs the handler in the event's span when it is alone, else in a span of the batch linked to
   * each event's span (the handler's own calls serve them all).
   */
  private handleIn(batch: Received[]): Promise<unknown> {
    const events = batch.map((r) => r.envelope);
    const traces = batch.map((r) => r.trace);
    const links = batch.map((r) => ({ context: r.span.spanContext() }));
    const options = batch.length === 1 ? { parent: batch[0].trace } : { links };
    return inSpan(
      `handle ${this.options.durableName} events`,
      { ...options, attributes: { events: batch.length } },
      () => this.options.handle(events, traces),
    );
  }

  private async handleBatch(batch: Received[]): Promise<void> {
    try {
      await this.handleIn(batch);
      for (const { message } of batch) message.ack();
      return;
    } catch (err) {
      if (batch.length === 1) return this.failed(batch[0], err);
      this.options.logger.warn({ err, events: batch.length }, 'event batch failed; handling its events one by one');
    }
    let failures = 0;
    for (const [index, item] of batch.entries()) {
      // Every event so far failed alone too.
      if (failures >= SINGLE_FAILURES_BEFORE_GIVING_UP_ON_BATCH && index === failures) {
        this.options.logger.warn({ events: batch.length - index }, 'events not handled; they will come again');
        for (const rest of batch.slice(index)) rest.message.nak(this.delayAfter(rest.message));
        return;
      }
      try {
        await this.handleIn([item]);
        item.message.ack();
      } catch (err) {
        failures += 1;
        await this.failed(item, err);
      }
    }
  }

  /** A failed delivery: parked if it was the last allowed one, else delivered again later. */
  private async failed({ message, envelope, span }: Received, err: unknown): Promise<void> {
    recordSpanError(span, err);
    const deliveries = message.info.deliveryCount;
    if (deliveries >= this.options.maxDeliveries) return this.park(message, envelope.id, err);
    this.options.logger.warn(
      { err, event_id: envelope.id, subject: message.subject, deliveries },
      'event not handled; it will come again',
    );
    message.nak(this.delayAfter(message));
  }

  private async park(message: JsMsg, eventId: string | null, err: unknown): Promise<void> {
    const { logger, parked, durableName } = this.options;
    const stream = this.options.stream.name;
    const deliveries = message.info.deliveryCount;
    try {
      await parked.park({
        consumer: durableName,
        stream,
        streamSequence: message.info.streamSequence,
        subject: message.subject,
        eventId,
        payload: message.string(),
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        deliveries,
        parkedAt: this.options.now(),
      });
    } catch (parkErr) {
      logger.warn(
        { err: parkErr, event_id: eventId, subject: message.subject },
        'event could not be parked; it will come again',
      );
      message.nak(this.delayAfter(message));
      return;
    }
    logger.error(
      { err, event_id: eventId, subject: message.subject, deliveries, stream_sequence: message.info.streamSequence },
      'event parked: its handling failed on every delivery (see parked_events)',
    );
    message.ack();
  }

  private delayAfter(message: JsMsg): number {
    const doublings = Math.min(message.info.deliveryCount - 1, 16);
    return Math.min(this.options.redeliveryDelayMs * 2 ** doublings, MAX_REDELIVERY_DELAY_MS);
  }
}

const natsHeaderGetter: TextMapGetter<MsgHdrs> = {
  get: (headers, key) => (headers.has(key) ? headers.get(key) : undefined),
  keys: (headers) => headers.keys(),
};

function envelopeOf(message: JsMsg): EventEnvelope | null {
  try {
    const envelope = message.json<EventEnvelope>();
    return typeof envelope?.id === 'string' && typeof envelope.event === 'string' ? envelope : null;
  } catch {
    return null;
  }
}
