import type { Migration } from '@billing/platform';

/** Plan changes with proration (docs/api-behaviour.md §18). */
export const addPlanChanges: Migration = {
  name: '0015-add-plan-changes',
  async up({ sql }) {
    // A change asked for `at_period_end`: the plan as catalog sold it when asked (billing keeps
    // its own copy, as of the current plan), applied by the renewal at pending_plan_change_at.
    await sql(`
      ALTER TABLE subscriptions
        ADD COLUMN pending_plan_id uuid,
        ADD COLUMN pending_plan_name text,
        ADD COLUMN pending_amount bigint CHECK (pending_amount >= 0),
        ADD COLUMN pending_interval text
          CHECK (pending_interval IN ('daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually')),
        ADD COLUMN pending_interval_count integer CHECK (pending_interval_count >= 1),
        ADD COLUMN pending_usage_unit_amount bigint CHECK (pending_usage_unit_amount >= 0),
        ADD COLUMN pending_plan_change_at timestamptz,
        -- When the plan last changed (null: never, so all its usage is priced at the plan it
        -- carries, and subscription_plans holds nothing of it).
        ADD COLUMN plan_changed_at timestamptz,
        ADD CONSTRAINT subscriptions_pending_plan_whole CHECK (
          (pending_plan_id IS NULL) = (pending_plan_change_at IS NULL)
          AND (pending_plan_id IS NULL) = (pending_plan_name IS NULL)
          AND (pending_plan_id IS NULL) = (pending_amount IS NULL)
          AND (pending_plan_id IS NULL) = (pending_interval IS NULL)
          AND (pending_plan_id IS NULL) = (pending_interval_count IS NULL)
          AND (pending_plan_id IS NOT NULL OR pending_usage_unit_amount IS NULL)
        )`);

    // The plans a subscription has had, each in force from `in_force_from` until the next row's:
    // metered usage is priced at the plan in force at each record's timestamp. Written from a
    // subscription's first plan change on (its first row is the plan it started on, from its
    // creation); a subscription without rows has had one plan, the one it carries.
    await sql(`
      CREATE TABLE subscription_plans (
        id uuid PRIMARY KEY,
        subscription_id uuid NOT NULL REFERENCES subscriptions (id),
        plan_id uuid NOT NULL,
        plan_name text NOT NULL,
        amount bigint NOT NULL CHECK (amount >= 0),
        interval text NOT NULL,
        interval_count integer NOT NULL CHECK (interval_count >= 1),
        usage_unit_amount bigint CHECK (usage_unit_amount >= 0),
        in_force_from timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (subscription_id, in_force_from)
      )`);

    // The change an invoice pays for (a proration invoice): applied to the subscription when the
    // invoice is paid, dropped when its charge fails (the invoice is then voided). Null on every
    // other invoice.
    await sql(`ALTER TABLE invoices ADD COLUMN plan_change jsonb`);
    // One invoice per subscription and period still holds for period invoices; a plan change's
    // invoice may start at the same instant as a period (a change in the period's first millisecond).
    await sql(`ALTER TABLE invoices DROP CONSTRAINT invoices_subscription_id_period_start_key`);
    await sql(`
      CREATE UNIQUE INDEX invoices_one_per_period ON invoices (subscription_id, period_start)
       WHERE plan_change IS NULL`);
    // The plan change awaiting its payment, if any (at most one per subscription).
    await sql(`
      CREATE UNIQUE INDEX invoices_plan_change_open ON invoices (subscription_id)
       WHERE plan_change IS NOT NULL AND status = 'OPEN'`);
  },
};
