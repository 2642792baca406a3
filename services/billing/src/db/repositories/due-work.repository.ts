import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';

/**
 * The billing scheduler's due work in SQL: subscriptions with a step due (period ends, trial ends
 * and notices) and OPEN invoices whose charge is due (renewals, dunning retries), counted or
 * claimed FOR UPDATE SKIP LOCKED so any number of replicas share it (docs/api-behaviour.md §8).
 * Each query reads the due rows through the subscriptions_due / subscriptions_trial_notice /
 * invoice indexes (migration 0010), not the tables.
 */
export class DueWorkRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /**
   * How much of a project's test-mode work is due or in flight, whoever holds it: unlike the
   * claims, this does not skip rows other replicas have locked, so a test clock's advance can wait
   * for them.
   */
  async testWorkCount(now: Date, projectId: string): Promise<number> {
    const [row] = await this.sequelize.query<{ count: string }>(
      `SELECT (SELECT count(*) FROM subscriptions s LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
                WHERE ${dueSubscription(false)})
            + (SELECT count(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
                LEFT JOIN test_clocks tc ON tc.project_id = i.project_id WHERE ${dueInvoice(false)})
            + (SELECT count(*) FROM payments p WHERE p.status = 'PENDING' AND p.invoice_id IS NOT NULL
                AND p.charge_started_at IS NOT NULL AND p.project_id = $2::uuid AND NOT p.livemode) AS count`,
      { bind: [now, projectId], type: QueryTypes.SELECT },
    );
    return Number(row.count);
  }

  /** The backlog in both modes (the scheduler_due_items metric). */
  async counts(now: Date): Promise<{ subscriptions: number; invoices: number }> {
    const [row] = await this.sequelize.query<{ subscriptions: string; invoices: string }>(
      `SELECT (SELECT count(*) FROM subscriptions s LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
                WHERE ${dueSubscription()}) AS subscriptions,
              (SELECT count(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
                LEFT JOIN test_clocks tc ON tc.project_id = i.project_id WHERE ${dueInvoice()}) AS invoices`,
      { bind: [now, null], type: QueryTypes.SELECT },
    );
    return { subscriptions: Number(row.subscriptions), invoices: Number(row.invoices) };
  }

  /**
   * Claims up to `limit` subscriptions with a step due, locked FOR UPDATE SKIP LOCKED until the
   * caller's transaction ends; each with its project's now (test clocks) and its trial notice.
   */
  claimDueSubscriptions(
    now: Date,
    filter: { projectId?: string; livemode?: boolean; limit: number },
    transaction: Transaction,
  ): Promise<{ id: string; now: Date; trial_will_end_notified_at: Date | null }[]> {
    return this.sequelize.query<{ id: string; now: Date; trial_will_end_notified_at: Date | null }>(
      `SELECT s.id, s.trial_will_end_notified_at, ${projectNow('s')} AS now
         FROM subscriptions s
         LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
        WHERE ${dueSubscription(filter.livemode)}
        ORDER BY s.project_id, s.current_period_end
        LIMIT $3
        FOR UPDATE OF s SKIP LOCKED`,
      { bind: [now, filter.projectId ?? null, filter.limit], transaction, type: QueryTypes.SELECT },
    );
  }

  /**
   * Claims up to `limit` OPEN invoices whose charge is due, of subscriptions still billed, locked
   * FOR UPDATE SKIP LOCKED until the caller's transaction ends, earliest due first.
   */
  claimDueInvoices(
    now: Date,
    filter: { projectId?: string; livemode?: boolean; limit: number },
    transaction: Transaction,
  ): Promise<{ id: string; next_payment_attempt: Date }[]> {
    return this.sequelize.query<{ id: string; next_payment_attempt: Date }>(
      `SELECT i.id, i.next_payment_attempt
         FROM invoices i
         JOIN subscriptions s ON s.id = i.subscription_id
         LEFT JOIN test_clocks tc ON tc.project_id = i.project_id
        WHERE ${dueInvoice(filter.livemode)}
        ORDER BY i.next_payment_attempt
        LIMIT $3
        FOR UPDATE OF i SKIP LOCKED`,
      { bind: [now, filter.projectId ?? null, filter.limit], transaction, type: QueryTypes.SELECT },
    );
  }
}

/**
 * The project's "now" in SQL: real time for live rows, real time + the project's test-clock
 * offset for test rows. $1 is the real time.
 */
const projectNow = (table: string) =>
  `($1::timestamptz + (CASE WHEN ${table}.livemode THEN 0 ELSE COALESCE(tc.offset_ms, 0) END) * interval '1 millisecond')`;

/**
 * The latest "now" of any row of a mode, for index range scans: projectNow depends on each row's
 * project, which no index can use, but test clocks only move forward, so no test row's now is
 * later than real time + the largest offset, and no live row's later than real time.
 */
const LATEST_TEST_NOW = `($1::timestamptz + (SELECT COALESCE(max(offset_ms), 0) FROM test_clocks) * interval '1 millisecond')`;
const dueBy = (column: string, table: string, ahead = '') =>
  `((${table}.livemode AND ${column} <= $1::timestamptz${ahead})
    OR (NOT ${table}.livemode AND ${column} <= ${LATEST_TEST_NOW}${ahead}))`;

/** Rows of one mode only, or of both; a literal, so the planner drops the other mode's bounds. */
const ofMode = (table: string, livemode: boolean | undefined) =>
  livemode === undefined ? '' : `AND ${livemode ? '' : 'NOT '}${table}.livemode`;

/**
 * A subscription with a step due ($1 real now, $2 an optional project filter). The dueBy bounds
 * restate the exact conditions in a form the subscriptions_due and subscriptions_trial_notice
 * indexes serve, so a poll reads the due rows, not the table.
 */
const dueSubscription = (livemode?: boolean) => `s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')
  AND ($2::uuid IS NULL OR s.project_id = $2::uuid) ${ofMode('s', livemode)}
  AND (
    (${dueBy('s.current_period_end', 's')}
      AND s.current_period_end <= ${projectNow('s')}
      AND (s.cancel_at_period_end
           OR (s.status IN ('ACTIVE', 'TRIALING')
               AND NOT EXISTS (SELECT 1 FROM invoices oi WHERE oi.subscription_id = s.id AND oi.status = 'OPEN'))))
    OR (s.status = 'TRIALING' AND s.trial_will_end_notified_at IS NULL
        AND ${dueBy('s.trial_end', 's', " + interval '3 days'")}
        AND s.trial_end - interval '3 days' <= ${projectNow('s')})
  )`;

/** An invoice whose charge (renewal or dunning retry) is due, of a subscription still billed. */
const dueInvoice = (livemode?: boolean) => `i.status = 'OPEN' AND i.next_payment_attempt IS NOT NULL
  AND ${dueBy('i.next_payment_attempt', 'i')}
  AND i.next_payment_attempt <= ${projectNow('i')}
  AND s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE')
  AND ($2::uuid IS NULL OR i.project_id = $2::uuid) ${ofMode('i', livemode)}`;
