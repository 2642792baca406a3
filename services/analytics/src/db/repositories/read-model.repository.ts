import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { SubscriptionStatus } from '@billing/analytics';
import type { CurrencyTotals, DailyRow, MrrMonthRow, RevenueMonthRow } from '../../domain/analytics-figures';
import {
  currencyKey,
  isEmptyMovement,
  subscriptionKey,
  type CurrencyScope,
  type FactScope,
  type ReadModelChanges,
} from '../../domain/read-model-changes';
import type { SubscriptionRecord } from '../../domain/subscription-movement';

/**
 * The advisory lock that keeps the rebuild and the consumer apart (docs/decisions.md, "Analytics"):
 * the rebuild holds it exclusively for its whole run, every consumer transaction takes it shared.
 */
const READ_MODEL_LOCK = 0x616e61; // "ana"
/** The key space of the per-subscription locks that serialize replicas applying facts of one subscription. */
const SUBSCRIPTION_LOCK_SPACE = 0x737562; // "sub"

const READ_MODEL_TABLES = [
  'processed_events',
  'subscription_states',
  'mrr_months',
  'revenue_months',
  'daily_figures',
  'currency_totals',
  'customer_contributions',
];

interface SubscriptionRow {
  project_id: string;
  livemode: boolean;
  subscription_id: string;
  currency: string;
  customer_id: string;
  status: SubscriptionStatus;
  contributing: boolean;
  mrr: string;
  last_fact_at: Date;
  ever_contributed: boolean;
  change_month: string;
  month_start_contributing: boolean;
  month_start_mrr: string;
  contributed_before_month: boolean;
  last_churn_day: string | null;
}

/** Sorted by key, so that concurrent writers take row locks in one order (no deadlock). */
const sortedValues = <T>(map: Map<string, T>): T[] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

const column = <T, V>(rows: T[], pick: (row: T) => V): V[] => rows.map(pick);

export class ReadModelRepository {
  constructor(private readonly sequelize: Sequelize) {}

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.sequelize.transaction(work);
  }

  /** The consumer's side of the rebuild lock: waits while a rebuild runs. */
  async shareReadModelLock(transaction: Transaction): Promise<void> {
    // Waiting out a rebuild is the design, not a slow statement: no statement_timeout for the
    // wait, the connection's own again after it.
    await this.sequelize.query('SET LOCAL statement_timeout = 0', { transaction });
    await this.sequelize.query('SELECT pg_advisory_xact_lock_shared($1)', { bind: [READ_MODEL_LOCK], transaction });
    await this.sequelize.query('SET LOCAL statement_timeout TO DEFAULT', { transaction });
  }

  /**
   * Records the events as processed; returns the ids that were not yet (the others were applied
   * before: a redelivery, or the rebuild's pass over them).
   */
  async claimEvents(eventIds: string[], now: Date, transaction: Transaction): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const rows = await this.sequelize.query<{ event_id: string }>(
      `INSERT INTO processed_events (event_id, processed_at)
       SELECT id, $2 FROM unnest($1::text[]) AS id ORDER BY id
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      { bind: [eventIds, now], type: QueryTypes.SELECT, transaction },
    );
    return new Set(rows.map((row) => row.event_id));
  }

  /**
   * The stored records of these subscriptions, after taking each one's lock (in one order) when
   * `lock`, so that two writers never build on the same previous state. The rebuild, alone under
   * its exclusive lock, takes none (a page of 1,000 would hold 1,000 of the server's lock slots).
   */
  async lockSubscriptions(
    subscriptions: (FactScope & { subscriptionId: string })[],
    transaction: Transaction,
    lock: boolean,
  ): Promise<Map<string, SubscriptionRecord>> {
    const found = new Map<string, SubscriptionRecord>();
    if (subscriptions.length === 0) return found;
    const keys = [...new Set(subscriptions.map((s) => subscriptionKey(s, s.subscriptionId)))].sort();
    if (lock) {
      await this.sequelize.query(
        `SELECT pg_advisory_xact_lock($1, hashtext(k)) FROM unnest($2::text[]) AS k ORDER BY hashtext(k), k`,
        { bind: [SUBSCRIPTION_LOCK_SPACE, keys], type: QueryTypes.SELECT, transaction },
      );
    }
    const rows = await this.sequelize.query<SubscriptionRow>(
      `SELECT s.*, to_char(s.last_churn_day, 'YYYY-MM-DD') AS last_churn_day FROM subscription_states s
       JOIN unnest($1::uuid[], $2::boolean[], $3::text[]) AS k (project_id, livemode, subscription_id)
         ON s.project_id = k.project_id AND s.livemode = k.livemode AND s.subscription_id = k.subscription_id`,
      {
        bind: [
          column(subscriptions, (s) => s.projectId),
          column(subscriptions, (s) => s.livemode),
          column(subscriptions, (s) => s.subscriptionId),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    for (const row of rows) {
      found.set(subscriptionKey({ projectId: row.project_id, livemode: row.livemode }, row.subscription_id), {
        currency: row.currency,
        customerId: row.customer_id,
        status: row.status,
        contributing: row.contributing,
        mrr: Number(row.mrr),
        lastFactAt: row.last_fact_at.getTime(),
        everContributed: row.ever_contributed,
        changeMonth: row.change_month,
        monthStart: { contributing: row.month_start_contributing, mrr: Number(row.month_start_mrr) },
        contributedBeforeMonth: row.contributed_before_month,
        lastChurnDay: row.last_churn_day,
      });
    }
    return found;
  }

  /** Writes a batch's changes: the subscriptions' records, then every ledger and total by its delta. */
  async writeChanges(changes: ReadModelChanges, transaction: Transaction): Promise<void> {
    const query = (sql: string, bind: unknown[]) => this.sequelize.query(sql, { bind, transaction });
    const subscriptions = sortedValues(changes.subscriptions);
    if (subscriptions.length > 0) {
      await query(
        `INSERT INTO subscription_states (project_id, livemode, subscription_id, currency, customer_id, status,
           contributing, mrr, last_fact_at, ever_contributed, change_month, month_start_contributing,
           month_start_mrr, contributed_before_month, last_churn_day)
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::text[], $4::char(3)[], $5::text[], $6::text[],
           $7::boolean[], $8::bigint[], $9::timestamptz[], $10::boolean[], $11::char(7)[], $12::boolean[],
           $13::bigint[], $14::boolean[], $15::date[])
         ON CONFLICT (project_id, livemode, subscription_id) DO UPDATE SET
           status = EXCLUDED.status, contributing = EXCLUDED.contributing, mrr = EXCLUDED.mrr,
           last_fact_at = EXCLUDED.last_fact_at, ever_contributed = EXCLUDED.ever_contributed,
           change_month = EXCLUDED.change_month, month_start_contributing = EXCLUDED.month_start_contributing,
           month_start_mrr = EXCLUDED.month_start_mrr, contributed_before_month = EXCLUDED.contributed_before_month,
           last_churn_day = EXCLUDED.last_churn_day`,
        [
          column(subscriptions, (s) => s.projectId),
          column(subscriptions, (s) => s.livemode),
          column(subscriptions, (s) => s.subscriptionId),
          column(subscriptions, (s) => s.record.currency),
          column(subscriptions, (s) => s.record.customerId),
          column(subscriptions, (s) => s.record.status),
          column(subscriptions, (s) => s.record.contributing),
          column(subscriptions, (s) => s.record.mrr),
          column(subscriptions, (s) => new Date(s.record.lastFactAt)),
          column(subscriptions, (s) => s.record.everContributed),
          column(subscriptions, (s) => s.record.changeMonth),
          column(subscriptions, (s) => s.record.monthStart.contributing),
          column(subscriptions, (s) => s.record.monthStart.mrr),
          column(subscriptions, (s) => s.record.contributedBeforeMonth),
          column(subscriptions, (s) => s.record.lastChurnDay),
        ],
      );
    }
    const months = sortedValues(changes.mrrMonths).filter((row) => !isEmptyMovement(row));
    if (months.length > 0) {
      await query(
        `INSERT INTO mrr_months AS m (project_id, livemode, currency, month, new, expansion, contraction, churned,
           reactivation, active_delta)
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::char(3)[], $4::char(7)[], $5::bigint[], $6::bigint[],
           $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
         ON CONFLICT (project_id, livemode, currency, month) DO UPDATE SET
           new = m.new + EXCLUDED.new, expansion = m.expansion + EXCLUDED.expansion,
           contraction = m.contraction + EXCLUDED.contraction, churned = m.churned + EXCLUDED.churned,
           reactivation = m.reactivation + EXCLUDED.reactivation, active_delta = m.active_delta + EXCLUDED.active_delta`,
        [
          ...scopeColumns(months),
          column(months, (r) => r.month),
          column(months, (r) => r.new),
          column(months, (r) => r.expansion),
          column(months, (r) => r.contraction),
          column(months, (r) => r.churned),
          column(months, (r) => r.reactivation),
          column(months, (r) => r.activeDelta),
        ],
      );
    }
    const revenue = sortedValues(changes.revenueMonths);
    if (revenue.length > 0) {
      await query(
        `INSERT INTO revenue_months AS r (project_id, livemode, currency, month, gross, refunds, tax)
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::char(3)[], $4::char(7)[], $5::bigint[], $6::bigint[],
           $7::bigint[])
         ON CONFLICT (project_id, livemode, currency, month) DO UPDATE SET
           gross = r.gross + EXCLUDED.gross, refunds = r.refunds + EXCLUDED.refunds, tax = r.tax + EXCLUDED.tax`,
        [
          ...scopeColumns(revenue),
          column(revenue, (r) => r.month),
          column(revenue, (r) => r.gross),
          column(revenue, (r) => r.refunds),
          column(revenue, (r) => r.tax),
        ],
      );
    }
    const days = sortedValues(changes.days);
    if (days.length > 0) {
      await query(
        `INSERT INTO daily_figures AS d (project_id, livemode, currency, day, last_churns, first_contributions,
           contributing_delta, gross, refunds)
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::char(3)[], $4::date[], $5::bigint[], $6::bigint[],
           $7::bigint[], $8::bigint[], $9::bigint[])
         ON CONFLICT (project_id, livemode, currency, day) DO UPDATE SET
           last_churns = d.last_churns + EXCLUDED.last_churns,
           first_contributions = d.first_contributions + EXCLUDED.first_contributions,
           contributing_delta = d.contributing_delta + EXCLUDED.contributing_delta,
           gross = d.gross + EXCLUDED.gross, refunds = d.refunds + EXCLUDED.refunds`,
        [
          ...scopeColumns(days),
          column(days, (r) => r.day),
          column(days, (r) => r.lastChurns),
          column(days, (r) => r.firstContributions),
          column(days, (r) => r.contributingDelta),
          column(days, (r) => r.gross),
          column(days, (r) => r.refunds),
        ],
      );
    }
    const customersDelta = await this.applyCustomerCounts(changes, transaction);
    for (const [key, delta] of customersDelta) {
      const totals = changes.totals.get(key);
      if (!totals) throw new Error('a customer count changed without its totals');
      totals.customers = delta;
    }
    const totals = sortedValues(changes.totals);
    if (totals.length > 0) {
      await query(
        `INSERT INTO currency_totals AS t (project_id, livemode, currency, mrr, active, trialing, past_due, customers)
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::char(3)[], $4::bigint[], $5::bigint[], $6::bigint[],
           $7::bigint[], $8::bigint[])
         ON CONFLICT (project_id, livemode, currency) DO UPDATE SET
           mrr = t.mrr + EXCLUDED.mrr, active = t.active + EXCLUDED.active, trialing = t.trialing + EXCLUDED.trialing,
           past_due = t.past_due + EXCLUDED.past_due, customers = t.customers + EXCLUDED.customers`,
        [
          ...scopeColumns(totals),
          column(totals, (r) => r.mrr),
          column(totals, (r) => r.active),
          column(totals, (r) => r.trialing),
          column(totals, (r) => r.pastDue),
          column(totals, (r) => r.customers),
        ],
      );
    }
  }

  /**
   * Moves each customer's count of contributing subscriptions; returns, per currency scope key,
   * the change of customers with at least one (a count leaving or reaching 0).
   */
  private async applyCustomerCounts(changes: ReadModelChanges, transaction: Transaction): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const rows = sortedValues(changes.customers).filter((row) => row.delta !== 0);
    if (rows.length === 0) return result;
    const updated = await this.sequelize.query<{
      project_id: string;
      livemode: boolean;
      currency: string;
      customer_id: string;
      contributing_subscriptions: string;
    }>(
      `INSERT INTO customer_contributions AS c (project_id, livemode, currency, customer_id, contributing_subscriptions)
       SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::char(3)[], $4::text[], $5::bigint[])
       ON CONFLICT (project_id, livemode, currency, customer_id) DO UPDATE SET
         contributing_subscriptions = c.contributing_subscriptions + EXCLUDED.contributing_subscriptions
       RETURNING project_id, livemode, currency, customer_id, contributing_subscriptions`,
      {
        bind: [...scopeColumns(rows), column(rows, (r) => r.customerId), column(rows, (r) => r.delta)],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    const deltas = new Map(rows.map((r) => [`${currencyKey(r)}|${r.customerId}`, r.delta]));
    for (const row of updated) {
      const scopeKey = currencyKey({ projectId: row.project_id, livemode: row.livemode, currency: row.currency });
      const now = Number(row.contributing_subscriptions);
      const before = now - (deltas.get(`${scopeKey}|${row.customer_id}`) ?? 0);
      const crossing = (now > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
      if (crossing !== 0) result.set(scopeKey, (result.get(scopeKey) ?? 0) + crossing);
    }
    return result;
  }

  /** Every MRR ledger row of one project, mode and currency up to `throughMonth` (bounded by the project's age). */
  async mrrMonthRows(scope: CurrencyScope, throughMonth: string): Promise<MrrMonthRow[]> {
    const rows = await this.sequelize.query<Record<string, string>>(
      `SELECT month, new, expansion, contraction, churned, reactivation, active_delta FROM mrr_months
       WHERE project_id = $1 AND livemode = $2 AND currency = $3 AND month <= $4`,
      { bind: [scope.projectId, scope.livemode, scope.currency, throughMonth], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({
      month: row.month,
      new: Number(row.new),
      expansion: Number(row.expansion),
      contraction: Number(row.contraction),
      churned: Number(row.churned),
      reactivation: Number(row.reactivation),
      activeDelta: Number(row.active_delta),
    }));
  }

  async revenueMonthRows(scope: CurrencyScope, fromMonth: string, toMonth: string): Promise<RevenueMonthRow[]> {
    const rows = await this.sequelize.query<Record<string, string>>(
      `SELECT month, gross, refunds, tax FROM revenue_months
       WHERE project_id = $1 AND livemode = $2 AND currency = $3 AND month BETWEEN $4 AND $5`,
      { bind: [scope.projectId, scope.livemode, scope.currency, fromMonth, toMonth], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({
      month: row.month,
      gross: Number(row.gross),
      refunds: Number(row.refunds),
      tax: Number(row.tax),
    }));
  }

  async totals(scope: CurrencyScope): Promise<CurrencyTotals> {
    const rows = await this.sequelize.query<Record<string, string>>(
      `SELECT mrr, active, trialing, past_due, customers FROM currency_totals
       WHERE project_id = $1 AND livemode = $2 AND currency = $3`,
      { bind: [scope.projectId, scope.livemode, scope.currency], type: QueryTypes.SELECT },
    );
    const row = rows[0];
    return row
      ? {
          mrr: Number(row.mrr),
          active: Number(row.active),
          trialing: Number(row.trialing),
          pastDue: Number(row.past_due),
          customers: Number(row.customers),
        }
      : { mrr: 0, active: 0, trialing: 0, pastDue: 0, customers: 0 };
  }

  /** The daily rows from `firstDay` on (the 30-day window, and any day after as_of). */
  async dailyRowsFrom(scope: CurrencyScope, firstDay: string): Promise<DailyRow[]> {
    const rows = await this.sequelize.query<Record<string, string>>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, last_churns, first_contributions, contributing_delta, gross,
         refunds
       FROM daily_figures WHERE project_id = $1 AND livemode = $2 AND currency = $3 AND day >= $4`,
      { bind: [scope.projectId, scope.livemode, scope.currency, firstDay], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({
      day: row.day,
      lastChurns: Number(row.last_churns),
      firstContributions: Number(row.first_contributions),
      contributingDelta: Number(row.contributing_delta),
      gross: Number(row.gross),
      refunds: Number(row.refunds),
    }));
  }

  /**
   * The rebuild's lock: held by one connection of its own for the whole rebuild, so that no
   * consumer transaction runs in between (they wait on the shared lock). Returns its release.
   */
  async holdExclusiveLock(): Promise<() => Promise<void>> {
    const sequelize = this.sequelize;
    const connection = (await sequelize.connectionManager.getConnection({ type: 'write' })) as object;
    const run = (sql: string) =>
      (connection as { query(sql: string, values: unknown[]): Promise<unknown> }).query(sql, [READ_MODEL_LOCK]);
    await run('SELECT pg_advisory_lock($1)');
    return async () => {
      try {
        await run('SELECT pg_advisory_unlock($1)');
      } finally {
        sequelize.connectionManager.releaseConnection(connection as never);
      }
    };
  }

  /** Empties the read model and the processed ids (the rebuild, under its exclusive lock). */
  async empty(): Promise<void> {
    await this.sequelize.query(`TRUNCATE ${READ_MODEL_TABLES.join(', ')}`);
  }
}

function scopeColumns(rows: CurrencyScope[]): [string[], boolean[], string[]] {
  return [column(rows, (r) => r.projectId), column(rows, (r) => r.livemode), column(rows, (r) => r.currency)];
}
