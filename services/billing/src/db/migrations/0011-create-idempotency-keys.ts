import type { Migration } from '@billing/platform';

/**
 * The Idempotency-Key of each money-moving request, stored with the change it makes
 * (docs/idempotency.md): unique per project, mode, operation and key. `fingerprint` names what
 * the request was about (so the key cannot be reused for another one); `resource` holds the ids
 * and provider reference that the change uses, chosen when the key is first seen, so a retry
 * after a gateway timeout finds the same change instead of making a second one.
 */
export const createIdempotencyKeys: Migration = {
  name: '0011-create-idempotency-keys',
  async up({ sql }) {
    await sql(`
      CREATE TABLE idempotency_keys (
        project_id UUID NOT NULL,
        livemode BOOLEAN NOT NULL,
        operation TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        resource JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (project_id, livemode, operation, idempotency_key)
      )`);
  },
};
