import type { Migration } from '@billing/platform';

export const createUsageRecords: Migration = {
  name: '0008-create-usage-records',
  async up({ sql }) {
    // Quantities are exact decimals: up to 18 integer and 6 fraction digits (docs/api-behaviour.md §9).
    await sql(`
      CREATE TABLE usage_records (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        subscription_id uuid NOT NULL REFERENCES subscriptions (id),
        quantity numeric(24, 6) NOT NULL,
        description text,
        idempotency_key text,
        timestamp timestamptz NOT NULL,
        billed boolean NOT NULL DEFAULT false,
        billed_at timestamptz,
        invoice_id uuid REFERENCES invoices (id),
        created_at timestamptz NOT NULL,
        CHECK (billed = (billed_at IS NOT NULL)),
        CHECK (billed = (invoice_id IS NOT NULL))
      )`);
    // A repeated key on the same subscription is the same record (ON CONFLICT DO NOTHING).
    await sql(`
      CREATE UNIQUE INDEX usage_records_idempotency ON usage_records (subscription_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL`);
    // What a renewal bills and the summary sums: a subscription's unbilled records up to a moment.
    await sql(`CREATE INDEX usage_records_unbilled ON usage_records (subscription_id, timestamp) WHERE NOT billed`);
    // History paging, newest first (findPage order), optionally filtered by billed.
    await sql(`CREATE INDEX usage_records_history ON usage_records (subscription_id, created_at DESC, id DESC)`);
  },
};
