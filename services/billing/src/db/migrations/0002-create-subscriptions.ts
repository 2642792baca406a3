import type { Migration } from '@billing/platform';

export const createSubscriptions: Migration = {
  name: '0002-create-subscriptions',
  async up({ sql }) {
    // The plan's price is copied: a subscription bills what the customer agreed to, whatever
    // happens to the plan later.
    await sql(`
      CREATE TABLE subscriptions (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers (id),
        plan_id uuid NOT NULL,
        plan_name text NOT NULL,
        amount bigint NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL,
        interval text NOT NULL
          CHECK (interval IN ('daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually')),
        interval_count integer NOT NULL CHECK (interval_count >= 1),
        usage_unit_amount bigint CHECK (usage_unit_amount >= 0),
        status text NOT NULL
          CHECK (status IN ('ACTIVE', 'PAST_DUE', 'CANCELLED', 'PAUSED', 'TRIALING', 'EXPIRED')),
        billing_anchor timestamptz NOT NULL,
        trial_end timestamptz,
        billing_cycles integer CHECK (billing_cycles >= 1),
        current_period_start timestamptz NOT NULL,
        current_period_end timestamptz NOT NULL,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        cancelled_at timestamptz,
        cancelled_by text CHECK (cancelled_by IN ('MERCHANT', 'CUSTOMER', 'SYSTEM')),
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        -- At most one subscription per checkout session: what makes completion exactly-once.
        checkout_session_id uuid UNIQUE,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await sql(
      `CREATE INDEX subscriptions_scope_recent ON subscriptions (project_id, livemode, created_at DESC, id DESC)`,
    );
    await sql(`CREATE INDEX subscriptions_customer ON subscriptions (customer_id, created_at DESC)`);
  },
};
