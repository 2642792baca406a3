/**
 * How far the analytics read model ran behind the event stream while billing renewed
 * (docs/api-behaviour.md §25), measured per event once the run is over, so that measuring adds
 * no query to the run itself: for every event billing recorded with analytics facts since
 * `start`, the time from billing's recording transaction (outbox_events.created_at) to
 * analytics applying it (processed_events.processed_at). Both clocks are this machine's.
 */
import type { Client } from 'pg';
import { percentile } from './measure';

export interface ReadModelLagFigures {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From billing's last recorded event to analytics' last apply. */
  catchUpMs: number;
}

export class ReadModelLagMeter {
  private fromSeq = 0;

  constructor(
    private readonly billing: Client,
    private readonly analytics: Client,
  ) {}

  /** Marks where the measured events begin: every event billing records after this call. */
  async start(): Promise<void> {
    const { rows } = await this.billing.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM outbox_events');
    this.fromSeq = Number(rows[0].seq ?? 0);
  }

  /** Waits (at most `timeoutMs`) until analytics has applied every event since start, then measures. */
  async measure(timeoutMs = 120_000): Promise<ReadModelLagFigures> {
    const { rows: recorded } = await this.billing.query<{ id: string; created_at: Date }>(
      `SELECT id, created_at FROM outbox_events WHERE payload ? 'analytics' AND seq > $1`,
      [this.fromSeq],
    );
    const ids = recorded.map((row) => row.id);
    const deadline = Date.now() + timeoutMs;
    let applied = new Map<string, Date>();
    for (;;) {
      const { rows } = await this.analytics.query<{ event_id: string; processed_at: Date }>(
        'SELECT event_id, processed_at FROM processed_events WHERE event_id = ANY($1::text[])',
        [ids],
      );
      applied = new Map(rows.map((row) => [row.event_id, row.processed_at]));
      if (applied.size >= ids.length) break;
      if (Date.now() > deadline) {
        throw new Error(`analytics applied ${applied.size} of ${ids.length} events within ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const lags = recorded
      .map((row) => Math.max(0, applied.get(row.id)!.getTime() - row.created_at.getTime()))
      .sort((a, b) => a - b);
    const lastRecorded = Math.max(0, ...recorded.map((row) => row.created_at.getTime()));
    const lastApplied = Math.max(0, ...[...applied.values()].map((at) => at.getTime()));
    return {
      events: ids.length,
      p50Ms: percentile(lags, 50),
      p99Ms: percentile(lags, 99),
      maxMs: lags[lags.length - 1] ?? 0,
      catchUpMs: Math.max(0, lastApplied - lastRecorded),
    };
  }
}
