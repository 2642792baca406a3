import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JetStreamClient, NatsConnection } from 'nats';
import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { Migration } from './db';
import type { Logger } from './logger';
import { counter } from './metrics';
import { eventSubject, natsHeaders } from './nats';
import { contextOfTraceHeaders, inSpan, SpanKind, traceHeadersOf, type Context } from './spans';

/** The outbox table; see outboxMigrations. */
export const outboxMigration: Migration = {
  name: '0000-create-outbox-events',
  async up({ sql }) {
    await sql(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await sql(`CREATE INDEX outbox_events_pending ON outbox_events (created_at) WHERE published_at IS NULL`);
  },
};

/** Rows of one transaction share created_at; this sequence keeps them in commit order. */
const outboxPublishOrderMigration: Migration = {
  name: '0000-outbox-publish-order',
  async up({ sql }) {
    await sql(`ALTER TABLE outbox_events ADD COLUMN seq bigserial`);
    await sql(`CREATE INDEX outbox_events_pending_seq ON outbox_events (seq) WHERE published_at IS NULL`);
  },
};

/** The relay reads pending rows by seq: the created_at index only cost an entry per event. */
const outboxRetireCreatedAtIndexMigration: Migration = {
  name: '0000-outbox-retire-created-at-index',
  async up({ sql }) {
    await sql(`DROP INDEX IF EXISTS outbox_events_pending`);
  },
};

/**
 * Retention's scan of published rows (outboxRetention, docs/deployment.md "Retention"): the old
 * published rows alone, in publish order.
 */
const outboxRetentionIndexMigration: Migration = {
  name: '0000-outbox-retention-index',
  async up({ sql }) {
    await sql(`CREATE INDEX outbox_events_published ON outbox_events (published_at) WHERE published_at IS NOT NULL`);
  },
};

/** Every service that emits events starts its migration list with these. */
export const outboxMigrations: Migration[] = [
  outboxMigration,
  outboxPublishOrderMigration,
  outboxRetireCreatedAtIndexMigration,
  outboxRetentionIndexMigration,
];

/** The envelope every consumer receives (notification turns it into the webhook body). */
export interface EventEnvelope<T = unknown> {
  id: string;
  event: string;
  data: T;
  created_at: string;
  project_id: string | null;
  livemode: boolean | null;
  /** Internal facts for analytics (NewEvent.analytics); absent on most events. */
  analytics?: object;
}

export interface NewEvent<T> {
  type: string;
  data: T;
  projectId?: string | null;
  livemode?: boolean | null;
  /** The event's business time (test-clock time in test mode). */
  occurredAt: Date;
  /** The trace the event continues (one of a batch's renewals); the active one by default. */
  trace?: Context;
  /**
   * Internal facts for the analytics read model (docs/api-behaviour.md §25; their shapes are
   * AnalyticsFact of @billing/analytics): on the envelope, never in `data`, so no webhook or email
   * carries them.
   */
  analytics?: object;
}

const committed = new EventEmitter();
committed.setMaxListeners(0);

/**
 * Writes an event in the caller's transaction: it exists if and only if the change commits.
 * After commit the in-process relay is woken so publishing does not wait for the next poll.
 */
export async function recordEvent<T>(
  sequelize: Sequelize,
  transaction: Transaction,
  event: NewEvent<T>,
): Promise<EventEnvelope<T>> {
  const [envelope] = await recordEvents(sequelize, transaction, [event]);
  return envelope;
}

/**
 * Writes several events in the caller's transaction with one INSERT (a batch of renewals);
 * they are published in the order given.
 */
export async function recordEvents<T>(
  sequelize: Sequelize,
  transaction: Transaction,
  events: NewEvent<T>[],
): Promise<EventEnvelope<T>[]> {
  if (events.length === 0) return [];
  // The trace of the change (the request, or the scheduled pass): the relay continues it.
  const activeHeaders = JSON.stringify(traceHeadersOf());
  const headers = events.map((event) => (event.trace ? JSON.stringify(traceHeadersOf(event.trace)) : activeHeaders));
  const envelopes: EventEnvelope<T>[] = events.map((event) => ({
    id: randomUUID(),
    event: event.type,
    data: event.data,
    created_at: event.occurredAt.toISOString(),
    project_id: event.projectId ?? null,
    livemode: event.livemode ?? null,
    ...(event.analytics ? { analytics: event.analytics } : {}),
  }));
  // WITH ORDINALITY keeps the given order in seq, which is the publish order.
  await sequelize.query(
    `INSERT INTO outbox_events (id, event_type, payload, headers)
     SELECT e.id, e.event_type, e.payload, e.headers
       FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::jsonb[])
            WITH ORDINALITY AS e(id, event_type, payload, headers, n)
      ORDER BY e.n`,
    {
      bind: [
        envelopes.map((e) => e.id),
        envelopes.map((e) => e.event),
        envelopes.map((e) => JSON.stringify(e)),
        headers,
      ],
      transaction,
      type: QueryTypes.INSERT,
    },
  );
  transaction.afterCommit(() => {
    committed.emit('event');
  });
  return envelopes;
}

interface PendingRow {
  id: string;
  event_type: string;
  /** The envelope's JSON as stored, sent as it is (no parse and re-serialise per event). */
  payload: string;
  headers: Record<string, string>;
}

export interface OutboxRelayOptions {
  sequelize: Sequelize;
  nats: NatsConnection;
  logger: Logger;
  /** Events go to `<subjectPrefix>.<event type>` (EVENTS_SUBJECT_PREFIX). */
  subjectPrefix: string;
  batchSize?: number;
  /**
   * How long a relay that found nothing sleeps before looking again (rows from other replicas,
   * or left by a process that died): doubled after each empty look, up to 8 times this.
   */
  pollIntervalMs?: number;
}

/**
 * Publishes committed outbox rows to JetStream with Nats-Msg-Id = event id and marks them sent.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of relays (replicas) can run:
 * each row is published by one of them, and a crash before marking only causes a re-publish
 * that JetStream's duplicate window drops.
 */
export class OutboxRelay {
  private readonly js: JetStreamClient;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly onCommitted = () => this.wake?.();
  /** How many rows this relay published (used by tests and metrics). */
  published = 0;

  /** Events published and failed passes, for Prometheus (docs/deployment.md, "Metrics"). */
  private readonly publishedEvents = counter(
    'outbox_relay_published_events_total',
    'Outbox events the relay published to JetStream and marked sent',
    [],
  );
  private readonly publishFailures = counter(
    'outbox_relay_publish_failures_total',
    'Batches the outbox relay failed to publish or mark sent (NATS or the database failed); each is tried again',
    [],
  );

  constructor(private readonly options: OutboxRelayOptions) {
    this.js = options.nats.jetstream();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    committed.on('event', this.onCommitted);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    committed.off('event', this.onCommitted);
    this.wake?.();
    await this.loop;
  }

  /** Publishes one batch; returns how many rows it published. */
  async publishBatch(): Promise<number> {
    const { sequelize } = this.options;
    const count = await sequelize.transaction(async (transaction) => {
      const rows = await sequelize.query<PendingRow>(
        `SELECT id, event_type, payload::text AS payload, headers FROM outbox_events
          WHERE published_at IS NULL ORDER BY seq
          LIMIT $1 FOR UPDATE SKIP LOCKED`,
        { bind: [this.options.batchSize ?? 500], transaction, type: QueryTypes.SELECT },
      );
      if (rows.length === 0) return 0;
      // Sent in order on one connection; acks are awaited together.
      await Promise.all(rows.map((row) => this.publish(row)));
      await sequelize.query(`UPDATE outbox_events SET published_at = now() WHERE id = ANY($1::uuid[])`, {
        bind: [rows.map((r) => r.id)],
        transaction,
      });
      this.published += rows.length;
      return rows.length;
    });
    // Counted once the transaction has committed: a batch rolled back is a failure, not sent.
    if (count > 0) this.publishedEvents.inc(count);
    return count;
  }

  /**
   * One row to JetStream, in a span of the trace that wrote it (docs/decisions.md, "One trace
   * per request"): the message carries that span's context, which consumers continue.
   */
  private publish(row: PendingRow) {
    const subject = eventSubject(this.options.subjectPrefix, row.event_type);
    const attributes = {
      'messaging.system': 'nats',
      'messaging.operation.type': 'send',
      'messaging.destination.name': subject,
      'messaging.message.id': row.id,
    };
    const parent = contextOfTraceHeaders(row.headers);
    return inSpan(`publish ${subject}`, { kind: SpanKind.PRODUCER, attributes, parent }, () => {
      const headers = natsHeaders();
      for (const [k, v] of Object.entries({ ...row.headers, ...traceHeadersOf() })) headers.set(k, v);
      return this.js.publish(subject, Buffer.from(row.payload), { msgID: row.id, headers });
    });
  }

  private async run(): Promise<void> {
    // A commit in this process wakes the relay at once, so looking often only matters for rows
    // written elsewhere; backing off while idle spares an idle process's CPU and its database
    // four empty transactions a second.
    const shortest = this.options.pollIntervalMs ?? 250;
    let interval = shortest;
    while (this.running) {
      let count = 0;
      try {
        count = await this.publishBatch();
      } catch (err) {
        this.publishFailures.inc();
        this.options.logger.warn({ err }, 'outbox relay: publish failed; will retry');
        await this.sleep(1000);
        continue;
      }
      if (count > 0) {
        interval = shortest;
        continue;
      }
      const woken = await this.sleep(interval);
      interval = woken ? shortest : Math.min(interval * 2, shortest * 8);
    }
  }

  /** Resolves to true when woken by a commit (or stop), false when `ms` passed. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
