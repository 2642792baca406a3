import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';

/**
 * The outbox rows that carry analytics facts: billing's history for a rebuild, which retention
 * never deletes (docs/deployment.md, "Retention"; the index of migration 0090 carries it too).
 */
export const ANALYTICS_FACT_ROWS = "payload ? 'analytics'";

/** One recorded event with analytics facts: its place in commit order and its envelope as published. */
export interface AnalyticsEventRow {
  seq: number;
  /** The envelope's JSON text, as the outbox relay publishes it (payload::text). */
  envelopeJson: string;
}

/**
 * Billing's recorded events that carry analytics facts (docs/api-behaviour.md §25): the outbox
 * rows whose envelope has an `analytics` key, every project and mode (the analytics read model
 * keeps them all apart itself), read through the partial index outbox_events_analytics
 * (migration 0080).
 */
export class AnalyticsEventRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /** At most `limit` of them after `afterSeq`, in seq order. */
  async listAfter(afterSeq: number, limit: number): Promise<AnalyticsEventRow[]> {
    const rows = await this.sequelize.query<{ seq: string; payload: string }>(
      `SELECT seq, payload::text AS payload FROM outbox_events
        WHERE payload ? 'analytics' AND seq > $1
        ORDER BY seq
        LIMIT $2`,
      { bind: [afterSeq, limit], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({ seq: Number(row.seq), envelopeJson: row.payload }));
  }
}
