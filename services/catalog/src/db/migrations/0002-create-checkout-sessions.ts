import type { Migration } from '@billing/platform';

export const createCheckoutSessions: Migration = {
  name: '0002-create-checkout-sessions',
  async up({ sql }) {
    await sql(`
      CREATE TABLE checkout_sessions (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        merchant_id uuid NOT NULL,
        livemode boolean NOT NULL,
        code text NOT NULL UNIQUE,
        plan_id uuid NOT NULL REFERENCES plans (id),
        status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'EXPIRED', 'CANCELLED')),
        success_url text,
        cancel_url text,
        customer_email text,
        customer_name text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        customer_id uuid,
        subscription_id uuid,
        transaction_reference text,
        expires_at timestamptz NOT NULL,
        completed_at timestamptz,
        created_at timestamptz NOT NULL
      )`);
    await sql(
      `CREATE INDEX checkout_sessions_scope_recent ON checkout_sessions (project_id, livemode, created_at DESC, id DESC)`,
    );
    // The expiry sweep reads only pending sessions, by due time.
    await sql(
      `CREATE INDEX checkout_sessions_pending_expiry ON checkout_sessions (expires_at) WHERE status = 'PENDING'`,
    );
  },
};
