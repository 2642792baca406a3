import type { Migration } from '@billing/platform';

export const createWebhooks: Migration = {
  name: '0001-create-webhooks',
  async up({ sql }) {
    await sql(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        description text,
        is_active boolean NOT NULL DEFAULT true,
        secret_sealed text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // The list view (newest first) and the fan-out of an event to its project's webhooks.
    await sql(`CREATE INDEX webhooks_scope_recent ON webhooks (project_id, livemode, created_at DESC, id DESC)`);
  },
};
