import type { Migration } from '@billing/platform';

/**
 * One row per Idempotency-Key use (docs/idempotency.md). The primary key is the scope (an API
 * key or a JWT-only merchant), the method, the path and the key: the same key on another path or
 * under another API key is another request. `status` NULL means the request is still running;
 * `owner` is the claim of the replica running it, so only that claim completes or releases it.
 */
export const createIdempotencyRecords: Migration = {
  name: '0001-create-idempotency-records',
  async up({ sql }) {
    await sql(`
      CREATE TABLE idempotency_records (
        scope TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        owner UUID NOT NULL,
        status INTEGER,
        response_body TEXT,
        locked_until TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (scope, method, path, idempotency_key)
      )`);
    await sql(`CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at)`);
  },
};
