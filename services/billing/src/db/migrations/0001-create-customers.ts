import type { Migration } from '@billing/platform';

export const createCustomers: Migration = {
  name: '0001-create-customers',
  async up({ sql }) {
    await sql(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        email text NOT NULL,
        name text,
        gateway_customer_id text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // One customer per e-mail in a project and mode, whatever its case (docs/api-behaviour.md §7);
    // checkout's find-or-create relies on it under concurrency.
    await sql(`CREATE UNIQUE INDEX customers_scope_email ON customers (project_id, livemode, lower(email))`);
    await sql(`CREATE INDEX customers_scope_recent ON customers (project_id, livemode, created_at DESC, id DESC)`);

    // Reusable card authorizations the provider returned; renewals charge them.
    await sql(`
      CREATE TABLE payment_authorizations (
        id uuid PRIMARY KEY,
        customer_id uuid NOT NULL REFERENCES customers (id),
        authorization_code text NOT NULL,
        last4 text,
        brand text,
        exp_month text,
        exp_year text,
        reusable boolean NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (customer_id, authorization_code)
      )`);
  },
};
