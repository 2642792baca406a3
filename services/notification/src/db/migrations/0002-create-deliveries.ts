import type { Migration } from '@billing/platform';

export const createDeliveries: Migration = {
  name: '0002-create-deliveries',
  async up({ sql }) {
    // One row per event and webhook: a redelivered or duplicated event adds nothing. A deleted
    // webhook takes its deliveries with it, so it gets nothing more.
    await sql(`
      CREATE TABLE deliveries (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        event text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL,
        delivered_at timestamptz,
        UNIQUE (event_id, webhook_id)
      )`);
    await sql(`CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('PENDING', 'RETRYING')`);
    await sql(`CREATE INDEX deliveries_of_webhook ON deliveries (webhook_id, created_at DESC, id DESC)`);
    await sql(`
      CREATE TABLE delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL,
        error text,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  },
};
