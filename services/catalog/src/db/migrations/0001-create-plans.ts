import type { Migration } from '@billing/platform';

export const createPlans: Migration = {
  name: '0001-create-plans',
  async up({ sql }) {
    await sql(`
      CREATE TABLE plans (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        amount bigint NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL,
        interval text NOT NULL,
        interval_count integer NOT NULL,
        trial_period_days integer NOT NULL,
        usage_unit_amount bigint CHECK (usage_unit_amount >= 0),
        is_active boolean NOT NULL DEFAULT true,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // Every list is "this project and mode, newest first".
    await sql(`CREATE INDEX plans_scope_recent ON plans (project_id, livemode, created_at DESC, id DESC)`);
  },
};
