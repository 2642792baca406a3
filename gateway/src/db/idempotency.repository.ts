import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';

/** Which request a record answers: scope (API key or merchant), method, path and key. */
export interface IdempotencyIdentity {
  scope: string;
  method: string;
  path: string;
  key: string;
}

/** A record another request holds or has answered. */
export interface StoredIdempotencyRecord {
  bodyHash: string;
  /** Null while the first request is still running. */
  status: number | null;
  responseBody: string | null;
}

export type ClaimResult = { claimed: true } | { claimed: false; record: StoredIdempotencyRecord };

export interface ClaimInput extends IdempotencyIdentity {
  bodyHash: string;
  /** This request's claim; only it may complete or release the record. */
  owner: string;
  now: Date;
  /** Until when a running request holds the key; past it a crashed replica's claim is taken over. */
  lockedUntil: Date;
  expiresAt: Date;
}

const IDENTITY_MATCH = 'scope = $1 AND method = $2 AND path = $3 AND idempotency_key = $4';

/** The gateway's Idempotency-Key records, in its own database (shared by every replica). */
export class IdempotencyRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /**
   * One statement decides who runs: a new key is inserted in progress and claimed; an expired
   * record, or one left in progress past its lock by a replica that died (same body only), is
   * taken over; anything else is returned as it stands.
   */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    for (;;) {
      const claimed = await this.sequelize.query<{ owner: string }>(
        `INSERT INTO idempotency_records AS r (scope, method, path, idempotency_key, body_hash, owner, status,
           response_body, locked_until, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, $7, $8, $9)
         ON CONFLICT (scope, method, path, idempotency_key) DO UPDATE
           SET body_hash = EXCLUDED.body_hash, owner = EXCLUDED.owner, status = NULL, response_body = NULL,
               locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= $8
              OR (r.status IS NULL AND r.locked_until <= $8 AND r.body_hash = EXCLUDED.body_hash)
         RETURNING owner`,
        {
          bind: [
            input.scope,
            input.method,
            input.path,
            input.key,
            input.bodyHash,
            input.owner,
            input.lockedUntil,
            input.now,
            input.expiresAt,
          ],
          type: QueryTypes.SELECT,
        },
      );
      if (claimed[0]?.owner === input.owner) return { claimed: true };
      const [record] = await this.sequelize.query<{
        body_hash: string;
        status: number | null;
        response_body: string | null;
      }>(`SELECT body_hash, status, response_body FROM idempotency_records WHERE ${IDENTITY_MATCH}`, {
        bind: [input.scope, input.method, input.path, input.key],
        type: QueryTypes.SELECT,
      });
      // Released (a 5xx) or purged between the two statements: try to claim it again.
      if (!record) continue;
      return {
        claimed: false,
        record: { bodyHash: record.body_hash, status: record.status, responseBody: record.response_body },
      };
    }
  }

  /** Stores the answer of a claimed request, so that later requests with the key replay it. */
  async complete(identity: IdempotencyIdentity, owner: string, status: number, responseBody: string): Promise<void> {
    await this.sequelize.query(
      `UPDATE idempotency_records SET status = $6, response_body = $7 WHERE ${IDENTITY_MATCH} AND owner = $5`,
      { bind: [identity.scope, identity.method, identity.path, identity.key, owner, status, responseBody] },
    );
  }

  /** Forgets a claimed request whose answer is not kept (5xx, 429): a retry runs again. */
  async release(identity: IdempotencyIdentity, owner: string): Promise<void> {
    await this.sequelize.query(
      `DELETE FROM idempotency_records WHERE ${IDENTITY_MATCH} AND owner = $5 AND status IS NULL`,
      { bind: [identity.scope, identity.method, identity.path, identity.key, owner] },
    );
  }

  /** Deletes up to `limit` expired records; returns how many. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    const deleted = await this.sequelize.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM idempotency_records WHERE ctid IN (
           SELECT ctid FROM idempotency_records WHERE expires_at <= $1 LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      { bind: [now, limit], type: QueryTypes.SELECT },
    );
    return deleted[0]?.n ?? 0;
  }
}
