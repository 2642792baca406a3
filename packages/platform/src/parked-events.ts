import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { Migration } from './db';
import type { NatsConnection } from './nats';

/**
 * The parked events table, in the database of every service that consumes events: an event its
 * handler failed to take after the consumer's last delivery, kept as it arrived (docs/events-and-test-mode.md).
 */
export const parkedEventsMigration: Migration = {
  name: '0000-create-parked-events',
  async up({ sql }) {
    await sql(`
      CREATE TABLE parked_events (
        id bigserial PRIMARY KEY,
        consumer text NOT NULL,
        stream text NOT NULL,
        stream_sequence bigint NOT NULL,
        subject text NOT NULL,
        event_id text,
        payload text NOT NULL,
        error text NOT NULL,
        deliveries integer NOT NULL,
        parked_at timestamptz NOT NULL,
        replayed_at timestamptz,
        UNIQUE (consumer, stream, stream_sequence)
      )`);
  },
};

/**
 * Retention's scan of replayed parked events (parkedEventRetention, docs/deployment.md
 * "Retention"); every service that lists parkedEventsMigration lists this after it.
 */
export const parkedEventRetentionIndexMigration: Migration = {
  name: '0000-parked-events-retention-index',
  async up({ sql }) {
    await sql(`CREATE INDEX parked_events_replayed ON parked_events (replayed_at) WHERE replayed_at IS NOT NULL`);
  },
};

export interface ParkedEvent {
  consumer: string;
  stream: string;
  streamSequence: number;
  subject: string;
  eventId: string | null;
  payload: string;
  error: string;
  deliveries: number;
  parkedAt: Date;
}

/** Where a consumer keeps the events it gave up on, and how an operator sends them again. */
export class ParkedEvents {
  constructor(private readonly sequelize: Sequelize) {}

  /** Parked events of a consumer not yet replayed (the parked_events gauge of metrics.ts). */
  async waitingFor(consumer: string): Promise<number> {
    const [row] = await this.sequelize.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM parked_events WHERE consumer = $1 AND replayed_at IS NULL`,
      { bind: [consumer], type: QueryTypes.SELECT },
    );
    return row.count;
  }

  /** Idempotent: a message parked twice (the ack lost after parking) stays one row. */
  async park(event: ParkedEvent): Promise<void> {
    await this.sequelize.query(
      `INSERT INTO parked_events (consumer, stream, stream_sequence, subject, event_id, payload, error, deliveries, parked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (consumer, stream, stream_sequence) DO NOTHING`,
      {
        bind: [
          event.consumer,
          event.stream,
          event.streamSequence,
          event.subject,
          event.eventId,
          event.payload,
          event.error.slice(0, 4000),
          event.deliveries,
          event.parkedAt,
        ],
      },
    );
  }

  /**
   * Publishes parked events (all not yet replayed, or those of the given event ids) to their
   * subjects again and marks them replayed. The message id names the parked row, so JetStream's
   * de-duplication (keyed by event id) does not drop a replay made soon after the original.
   * Every consumer of the stream sees the replay; consumers are idempotent, so that is harmless.
   */
  async replay(nats: NatsConnection, options: { eventIds?: string[]; now: Date }): Promise<number> {
    const rows = await this.sequelize.query<{ id: string; subject: string; payload: string }>(
      `SELECT id, subject, payload FROM parked_events
        WHERE replayed_at IS NULL AND ($1::text[] IS NULL OR event_id = ANY($1::text[]))
        ORDER BY id`,
      { bind: [options.eventIds ?? null], type: QueryTypes.SELECT },
    );
    const js = nats.jetstream();
    for (const row of rows) {
      await js.publish(row.subject, Buffer.from(row.payload), { msgID: `parked-${row.id}` });
      await this.sequelize.query('UPDATE parked_events SET replayed_at = $2 WHERE id = $1', {
        bind: [row.id, options.now],
      });
    }
    return rows.length;
  }
}
