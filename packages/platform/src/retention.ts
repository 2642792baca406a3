import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { Clock } from './clock';
import type { RetentionConfig } from './config';
import type { Logger } from './logger';
import { counter } from './metrics';
import { startPollingLoop, type PollingLoop } from './polling-loop';

const DAY_MS = 24 * 60 * 60 * 1000;

const deletedRows = counter('retention_deleted_rows_total', 'Rows deleted by retention, by rule', ['rule']);

/**
 * One kind of row kept only for a while (docs/deployment.md, "Retention"): rows of `table` that
 * match `expired`, $1 being the cutoff (now - days). An index covers `expired`, so a pass reads
 * the old rows alone, never the table.
 */
export interface RetentionRule {
  /** Names the rule in logs and in retention_deleted_rows_total. */
  name: string;
  table: string;
  /** SQL condition; $1 is the cutoff (timestamptz). Written by the code, never from input. */
  expired: string;
  days: number;
}

/**
 * Published outbox events older than `days`: the relay is done with them and JetStream's
 * duplicate window is minutes. `keep` exempts rows that are history (billing's analytics facts,
 * which ListAnalyticsEvents serves to a rebuild); its index must carry the same condition.
 */
export function outboxRetention(days: number, options: { keep?: string } = {}): RetentionRule {
  return {
    name: 'outbox_events',
    table: 'outbox_events',
    expired: `published_at IS NOT NULL AND published_at < $1${options.keep ? ` AND NOT (${options.keep})` : ''}`,
    days,
  };
}

/** Parked events replayed more than `days` ago; one never replayed is an open case and stays. */
export function parkedEventRetention(days: number): RetentionRule {
  return { name: 'parked_events', table: 'parked_events', expired: 'replayed_at < $1', days };
}

/** Deletes expired rows a bounded batch at a time: short transactions, short locks. */
export class RetentionRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /** Deletes at most `limit` rows of the rule older than `cutoff`; returns how many went. */
  async deleteBatch(rule: RetentionRule, cutoff: Date, limit: number): Promise<number> {
    const rows = await this.sequelize.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM ${rule.table} WHERE ctid IN (
           SELECT ctid FROM ${rule.table} WHERE ${rule.expired} LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      { bind: [cutoff, limit], type: QueryTypes.SELECT },
    );
    return rows[0]?.n ?? 0;
  }
}

/**
 * One retention pass: each rule's expired rows, `batchSize` at a time, until a batch comes back
 * short. Returns the rows deleted by rule.
 */
export async function applyRetention(
  repository: RetentionRepository,
  rules: RetentionRule[],
  options: { now: Date; batchSize: number },
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const rule of rules) {
    const cutoff = new Date(options.now.getTime() - rule.days * DAY_MS);
    deleted[rule.name] = 0;
    for (;;) {
      const batch = await repository.deleteBatch(rule, cutoff, options.batchSize);
      deleted[rule.name] += batch;
      deletedRows.inc({ rule: rule.name }, batch);
      if (batch < options.batchSize) break;
    }
  }
  return deleted;
}

/** Runs applyRetention every RETENTION_INTERVAL_MS (a polling loop of its own: `retention`). */
export function startRetention(options: {
  sequelize: Sequelize;
  rules: RetentionRule[];
  config: RetentionConfig;
  clock: Clock;
  logger: Logger;
}): PollingLoop {
  const repository = new RetentionRepository(options.sequelize);
  return startPollingLoop(
    'retention',
    options.config.RETENTION_INTERVAL_MS,
    async () => {
      const deleted = await applyRetention(repository, options.rules, {
        now: options.clock.now(),
        batchSize: options.config.RETENTION_BATCH_SIZE,
      });
      if (Object.values(deleted).some((n) => n > 0)) options.logger.info({ deleted }, 'retention pass');
    },
    options.logger,
  );
}
