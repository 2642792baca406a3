import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { DomainError, type ProjectScope } from '@billing/platform';

/** The operations that store their caller's Idempotency-Key. */
export type IdempotentOperation =
  | 'create_subscription'
  | 'pay_invoice'
  | 'cancel_subscription'
  | 'balance_adjustment'
  | 'change_plan'
  | 'issue_credit_note';

/** What a key was first used for, and the ids its change uses. */
export interface KeyedChange<R> {
  /** True when this request is the key's first (or the earlier use has expired). */
  fresh: boolean;
  resource: R;
}

/** A key answers retries for as long as the gateway keeps its record (docs/idempotency.md). */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

export class IdempotencyKeyRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /**
   * Stores the key with `resource` unless it is already stored (then returns the stored one).
   * One statement, so concurrent requests with one key agree on the ids. A key used for another
   * request (another fingerprint) is a 409; one older than its lifetime starts afresh.
   */
  async claim<R extends Record<string, unknown>>(
    scope: ProjectScope,
    change: { operation: IdempotentOperation; key: string; fingerprint: string; resource: R },
    now: Date,
    transaction?: Transaction,
  ): Promise<KeyedChange<R>> {
    const bind = [scope.projectId, scope.livemode, change.operation, change.key];
    const [claimed] = await this.sequelize.query<{ resource: R }>(
      `INSERT INTO idempotency_keys AS k (project_id, livemode, operation, idempotency_key, fingerprint, resource, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, livemode, operation, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, resource = EXCLUDED.resource, created_at = EXCLUDED.created_at
         WHERE k.created_at <= $8
       RETURNING resource`,
      {
        bind: [
          ...bind,
          change.fingerprint,
          JSON.stringify(change.resource),
          now,
          new Date(now.getTime() - KEY_LIFETIME_MS),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    if (claimed) return { fresh: true, resource: claimed.resource };
    const [stored] = await this.sequelize.query<{ fingerprint: string; resource: R }>(
      `SELECT fingerprint, resource FROM idempotency_keys
        WHERE project_id = $1 AND livemode = $2 AND operation = $3 AND idempotency_key = $4`,
      { bind, type: QueryTypes.SELECT, transaction },
    );
    if (!stored) throw new Error(`idempotency key of ${change.operation} vanished`);
    if (stored.fingerprint !== change.fingerprint) {
      throw new DomainError('conflict', 'This Idempotency-Key was already used for a different request');
    }
    return { fresh: false, resource: stored.resource };
  }

  /**
   * Deletes up to `limit` keys past their lifetime at `now` (real time, as claim stores them);
   * returns how many. A key past its lifetime answers no retry (claim starts afresh), so keeping
   * it would only grow the table (docs/api-behaviour.md §17.1).
   */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const rows = await this.sequelize.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE created_at <= $1 LIMIT $2)
       RETURNING 1`,
      { bind: [new Date(now.getTime() - KEY_LIFETIME_MS), limit], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /**
   * Replaces a stored key's resource if `field` still holds `expected`; false when another
   * request replaced it first (so only one of concurrent retries starts a new change).
   */
  async replace(
    scope: ProjectScope,
    change: { operation: IdempotentOperation; key: string },
    expected: { field: string; value: string },
    resource: Record<string, unknown>,
  ): Promise<boolean> {
    const rows = await this.sequelize.query(
      `UPDATE idempotency_keys SET resource = $7::jsonb
        WHERE project_id = $1 AND livemode = $2 AND operation = $3 AND idempotency_key = $4
          AND resource->>$5 = $6
        RETURNING 1`,
      {
        bind: [
          scope.projectId,
          scope.livemode,
          change.operation,
          change.key,
          expected.field,
          expected.value,
          JSON.stringify(resource),
        ],
        type: QueryTypes.SELECT,
      },
    );
    return rows.length > 0;
  }

  /** Adds to a stored key's resource what its change decided later (e.g. the charge reference). */
  async attach(
    scope: ProjectScope,
    change: { operation: IdempotentOperation; key: string },
    resource: Record<string, unknown>,
    transaction: Transaction,
  ): Promise<void> {
    await this.sequelize.query(
      `UPDATE idempotency_keys SET resource = resource || $5::jsonb
        WHERE project_id = $1 AND livemode = $2 AND operation = $3 AND idempotency_key = $4`,
      {
        bind: [scope.projectId, scope.livemode, change.operation, change.key, JSON.stringify(resource)],
        transaction,
      },
    );
  }
}
