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
   * Period ends first, earliest first, then trial notices: each claim walks its own index in order
   * and stops at `limit`, so a claim costs the same however large the backlog behind it.
   */
  async claimDueSubscriptions(
    now: Date,
    filter: { projectId?: string; livemode?: boolean; limit: number },
    transaction: Transaction,
  ): Promise<{ id: string; now: Date; trial_will_end_notified_at: Date | null }[]> {
    const claim = (due: string, order: string, limit: number, taken: string[]) =>
      this.sequelize.query<{ id: string; now: Date; trial_will_end_notified_at: Date | null }>(
        `SELECT s.id, s.trial_will_end_notified_at, ${projectNow('s')} AS now
           FROM subscriptions s
           LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
          WHERE ${subscriptionInScope(filter.livemode)} AND ${due} AND NOT (s.id = ANY($4::uuid[]))
          ORDER BY ${order}
          LIMIT $3
          FOR UPDATE OF s SKIP LOCKED`,
        { bind: [now, filter.projectId ?? null, limit, taken], transaction, type: QueryTypes.SELECT },
      );
    const periodEnds = await claim(periodEndDue(filter.livemode), 's.current_period_end', filter.limit, []);
    if (periodEnds.length >= filter.limit) return periodEnds;
    // A trialing subscription may have both due; it was claimed above and takes one step.
    const notices = await claim(
      trialNoticeDue(filter.livemode),
      's.trial_end',
      filter.limit - periodEnds.length,
      periodEnds.map((s) => s.id),
    );
    return [...periodEnds, ...notices];
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
 * later than real time + the largest offset, and no live row's later than real time. For one
 * mode the bound is a single range, so an index is walked in order; for both, one per mode.
 */
const LATEST_TEST_NOW = `($1::timestamptz + (SELECT COALESCE(max(offset_ms), 0) FROM test_clocks) * interval '1 millisecond')`;
const dueBy = (column: string, table: string, livemode: boolean | undefined, ahead = '') => {
  const live = `${column} <= $1::timestamptz${ahead}`;
  const test = `${column} <= ${LATEST_TEST_NOW}${ahead}`;
  if (livemode === true) return live;
  if (livemode === false) return test;
  return `((${table}.livemode AND ${live}) OR (NOT ${table}.livemode AND ${test}))`;
};

/** Rows of one mode only, or of both; a literal, so the planner drops the other mode's bounds. */
const ofMode = (table: string, livemode: boolean | undefined) =>
  livemode === undefined ? '' : `AND ${livemode ? '' : 'NOT '}${table}.livemode`;

/**
 * A subscription the scheduler may step ($2 an optional project filter), of the mode asked; not
 * one parked because its next step cannot be computed (SubscriptionRepository.parkBilling).
 */
const subscriptionInScope = (livemode?: boolean) => `s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')
  AND s.billing_parked_at IS NULL AND ($2::uuid IS NULL OR s.project_id = $2::uuid) ${ofMode('s', livemode)}`;

/**
 * Its period has ended ($1 real now) and it is to be renewed or cancelled: not while an OPEN
 * invoice of it is being charged (invoices_open_of_subscription). The dueBy bound restates the
 * exact condition in a form the subscriptions_due index serves.
 */
const periodEndDue = (livemode?: boolean) => `${dueBy('s.current_period_end', 's', livemode)}
  AND s.current_period_end <= ${projectNow('s')}
  AND (s.cancel_at_period_end
       OR (s.status IN ('ACTIVE', 'TRIALING')
           AND NOT EXISTS (SELECT 1 FROM invoices oi WHERE oi.subscription_id = s.id AND oi.status = 'OPEN')))`;

/** Its trial ends within 3 days and it was not told yet (the subscriptions_trial_notice index). */
const trialNoticeDue = (livemode?: boolean) => `s.status = 'TRIALING' AND s.trial_will_end_notified_at IS NULL
  AND ${dueBy('s.trial_end', 's', livemode, " + interval '3 days'")}
  AND s.trial_end - interval '3 days' <= ${projectNow('s')}`;

/** A subscription with a step due: its period end or its trial notice. */
const dueSubscription = (livemode?: boolean) =>
  `${subscriptionInScope(livemode)} AND ((${periodEndDue(livemode)}) OR (${trialNoticeDue(livemode)}))`;

/** An invoice whose charge (renewal or dunning retry) is due, of a subscription still billed. */
const dueInvoice = (livemode?: boolean) => `i.status = 'OPEN' AND i.next_payment_attempt IS NOT NULL
  AND ${dueBy('i.next_payment_attempt', 'i', livemode)}
  AND i.next_payment_attempt <= ${projectNow('i')}
  AND s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE')
  AND ($2::uuid IS NULL OR i.project_id = $2::uuid) ${ofMode('i', livemode)}`;
