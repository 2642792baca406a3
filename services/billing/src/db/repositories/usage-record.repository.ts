import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction, type WhereOptions } from 'sequelize';
import { findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { UsageRecordModel } from '../models';

export interface NewUsageRecord {
  subscriptionId: string;
  /** Canonical exact decimal text. */
  quantity: string;
  description: string | null;
  idempotencyKey: string | null;
  timestamp: Date;
}

export interface InsertedUsage {
  /** Records inserted, in the order given; the others had a used idempotency key. */
  inserted: UsageRecordModel[];
  duplicates: number;
}

const RETURNED_COLUMNS = `id, project_id AS "projectId", livemode, subscription_id AS "subscriptionId", quantity,
  description, idempotency_key AS "idempotencyKey", timestamp, billed, billed_at AS "billedAt",
  invoice_id AS "invoiceId", created_at AS "createdAt"`;

/** Rows per INSERT statement: 7 parameters each, well under PostgreSQL's 65535 bind limit. */
const ROWS_PER_STATEMENT = 1000;

export class UsageRecordRepository {
  /**
   * Inserts records in multi-row statements; a record whose (subscription, idempotency key) is
   * already stored is skipped by ON CONFLICT DO NOTHING (race-safe: the unique index decides).
   * Repeated keys inside one call count as duplicates too (the first one wins).
   */
  async insertMany(
    scope: ProjectScope,
    records: NewUsageRecord[],
    now: Date,
    transaction?: Transaction,
  ): Promise<InsertedUsage> {
    const inserted: UsageRecordModel[] = [];
    for (let offset = 0; offset < records.length; offset += ROWS_PER_STATEMENT) {
      const chunk = records.slice(offset, offset + ROWS_PER_STATEMENT);
      const bind: unknown[] = [scope.projectId, scope.livemode, now];
      const rows = chunk.map((r) => {
        const base = bind.length;
        bind.push(randomUUID(), r.subscriptionId, r.quantity, r.description, r.idempotencyKey, r.timestamp);
        return `($${base + 1}, $1, $2, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, false, $3)`;
      });
      const result = await UsageRecordModel.sequelize!.query<Record<string, unknown>>(
        `INSERT INTO usage_records
           (id, project_id, livemode, subscription_id, quantity, description, idempotency_key, timestamp, billed, created_at)
         VALUES ${rows.join(', ')}
         ON CONFLICT (subscription_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING ${RETURNED_COLUMNS}`,
        { bind, transaction, type: QueryTypes.SELECT },
      );
      for (const row of result) inserted.push(UsageRecordModel.build(row, { isNewRecord: false, raw: true }));
    }
    return { inserted, duplicates: records.length - inserted.length };
  }

  findByIdempotencyKey(
    subscriptionId: string,
    idempotencyKey: string,
    transaction?: Transaction,
  ): Promise<UsageRecordModel | null> {
    return UsageRecordModel.findOne({ where: { subscriptionId, idempotencyKey }, transaction });
  }

  /** A subscription's history, newest first; `billed` filters when given. */
  listForSubscription(
    scope: ProjectScope,
    subscriptionId: string,
    page: PageRequest,
    billed?: boolean,
  ): Promise<UsageRecordModel[]> {
    const where: WhereOptions = { ...scopeWhere(scope), subscriptionId };
    if (billed !== undefined) Object.assign(where, { billed });
    return findPage(UsageRecordModel, where, page);
  }

  /**
   * How many unbilled records of a subscription have a timestamp in [from, to) (`from` null: from
   * the beginning), and their exact sum. Reads only (previews and summaries).
   */
  async sumUnbilledIn(
    subscriptionId: string,
    window: { from: Date | null; to: Date },
    transaction?: Transaction,
  ): Promise<{ count: number; total: string }> {
    const [row] = await UsageRecordModel.sequelize!.query<{ count: number; total: string }>(
      `SELECT count(*)::int AS count, COALESCE(sum(quantity), 0)::text AS total FROM usage_records
        WHERE subscription_id = $1 AND NOT billed AND timestamp < $2 AND ($3::timestamptz IS NULL OR timestamp >= $3)`,
      { bind: [subscriptionId, window.to, window.from], transaction, type: QueryTypes.SELECT },
    );
    return row;
  }

  /** Exact sum (PostgreSQL NUMERIC, as text) of a subscription's unbilled records before `before`. */
  async sumUnbilled(subscriptionId: string, before: Date, transaction?: Transaction): Promise<string> {
    return (await this.sumUnbilledIn(subscriptionId, { from: null, to: before }, transaction)).total;
  }

  /**
   * Marks a subscription's unbilled records with a timestamp in [from, to) (`from` null: from the
   * beginning) billed on an invoice, in one statement, and returns how many there were and their
   * exact sum.
   */
  async markBilledIn(
    subscriptionId: string,
    window: { from: Date | null; to: Date },
    invoiceId: string,
    billedAt: Date,
    transaction: Transaction,
  ): Promise<{ count: number; total: string }> {
    const [row] = await UsageRecordModel.sequelize!.query<{ count: number; total: string }>(
      `WITH billed AS (
         UPDATE usage_records SET billed = true, billed_at = $3, invoice_id = $4
         WHERE subscription_id = $1 AND NOT billed AND timestamp < $2 AND ($5::timestamptz IS NULL OR timestamp >= $5)
         RETURNING quantity
       )
       SELECT count(*)::int AS count, COALESCE(sum(quantity), 0)::text AS total FROM billed`,
      { bind: [subscriptionId, window.to, billedAt, invoiceId, window.from], transaction, type: QueryTypes.SELECT },
    );
    return row;
  }

  /** Returns records billed on an invoice that did not go through (a declined plan change) to unbilled. */
  async unbill(invoiceId: string, transaction: Transaction): Promise<void> {
    await UsageRecordModel.sequelize!.query(
      'UPDATE usage_records SET billed = false, billed_at = NULL, invoice_id = NULL WHERE invoice_id = $1',
      { bind: [invoiceId], transaction },
    );
  }
}
