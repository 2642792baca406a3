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

/** What a batch insert came to: records stored, and records skipped for a used idempotency key. */
export interface InsertedUsage {
  accepted: number;
  duplicates: number;
}

const RETURNED_COLUMNS = `id, project_id AS "projectId", livemode, subscription_id AS "subscriptionId", quantity,
  description, idempotency_key AS "idempotencyKey", timestamp, billed, billed_at AS "billedAt",
  invoice_id AS "invoiceId", created_at AS "createdAt"`;

/**
 * The rows of a batch as one array per column, unnested by PostgreSQL: seven parameters for any
 * number of rows, where a multi-row VALUES list binds seven per row. A CPU profile of the usage
 * benchmark showed billing spending more time formatting a 7,000-parameter statement and
 * building models from its RETURNING rows than PostgreSQL spent inserting (docs/benchmarks.md).
 */
const INSERT_UNNESTED = `INSERT INTO usage_records
    (id, project_id, livemode, subscription_id, quantity, description, idempotency_key, timestamp, billed, created_at)
  SELECT r.id, $1, $2, r.subscription_id, r.quantity, r.description, r.idempotency_key, r.timestamp, false, $3
    FROM unnest($4::uuid[], $5::uuid[], $6::numeric[], $7::text[], $8::text[], $9::timestamptz[])
      AS r (id, subscription_id, quantity, description, idempotency_key, timestamp)
  ON CONFLICT (subscription_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`;

export class UsageRecordRepository {
  /**
   * Inserts a batch of records in one statement; a record whose (subscription, idempotency key) is
   * already stored is skipped by ON CONFLICT DO NOTHING (race-safe: the unique index decides).
   * Repeated keys inside one call count as duplicates too (the first one wins).
   */
  async insertMany(
    scope: ProjectScope,
    records: NewUsageRecord[],
    now: Date,
    transaction?: Transaction,
  ): Promise<InsertedUsage> {
    if (records.length === 0) return { accepted: 0, duplicates: 0 };
    const [row] = await UsageRecordModel.sequelize!.query<{ accepted: number }>(
      `WITH inserted AS (${INSERT_UNNESTED} RETURNING 1) SELECT count(*)::int AS accepted FROM inserted`,
      { bind: [scope.projectId, scope.livemode, now, ...columnsOf(records)], transaction, type: QueryTypes.SELECT },
    );
    return { accepted: row.accepted, duplicates: records.length - row.accepted };
  }

  /** Inserts one record; null when its idempotency key is already used on the subscription. */
  async insertOne(
    scope: ProjectScope,
    record: NewUsageRecord,
    now: Date,
    transaction?: Transaction,
  ): Promise<UsageRecordModel | null> {
    const [row] = await UsageRecordModel.sequelize!.query<Record<string, unknown>>(
      `${INSERT_UNNESTED} RETURNING ${RETURNED_COLUMNS}`,
      { bind: [scope.projectId, scope.livemode, now, ...columnsOf([record])], transaction, type: QueryTypes.SELECT },
    );
    return row ? UsageRecordModel.build(row, { isNewRecord: false, raw: true }) : null;
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

/** The unnest arrays of INSERT_UNNESTED, in its parameter order ($4 to $9). */
function columnsOf(records: NewUsageRecord[]): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], [], []];
  for (const r of records) {
    columns[0].push(randomUUID());
    columns[1].push(r.subscriptionId);
    columns[2].push(r.quantity);
    columns[3].push(r.description);
    columns[4].push(r.idempotencyKey);
    columns[5].push(r.timestamp);
  }
  return columns;
}
