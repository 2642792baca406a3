import type { Migration } from '@billing/platform';

/**
 * The read model of docs/api-behaviour.md §25: every table is keyed by project and mode first, so
 * every query is one tenant's; the ledgers hold one row per month or day, never one per
 * subscription read at query time.
 */
export const createReadModel: Migration = {
  name: '0001-create-read-model',
  async up({ sql }) {
    // An event whose facts were applied, recorded in the same transaction as the change.
    await sql(`
      CREATE TABLE processed_events (
        event_id text PRIMARY KEY,
        processed_at timestamptz NOT NULL
      )`);
    // One subscription's state after its last fact and what its last month is judged from.
    await sql(`
      CREATE TABLE subscription_states (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        subscription_id text NOT NULL,
        currency char(3) NOT NULL,
        customer_id text NOT NULL,
        status text NOT NULL,
        contributing boolean NOT NULL,
        mrr bigint NOT NULL CHECK (mrr >= 0),
        last_fact_at timestamptz NOT NULL,
        ever_contributed boolean NOT NULL,
        change_month char(7) NOT NULL,
        month_start_contributing boolean NOT NULL,
        month_start_mrr bigint NOT NULL CHECK (month_start_mrr >= 0),
        contributed_before_month boolean NOT NULL,
        last_churn_day date,
        PRIMARY KEY (project_id, livemode, subscription_id)
      )`);
    // The MRR ledger: a month's movement sums and the change of contributing subscriptions.
    await sql(`
      CREATE TABLE mrr_months (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        currency char(3) NOT NULL,
        month char(7) NOT NULL,
        new bigint NOT NULL DEFAULT 0,
        expansion bigint NOT NULL DEFAULT 0,
        contraction bigint NOT NULL DEFAULT 0,
        churned bigint NOT NULL DEFAULT 0,
        reactivation bigint NOT NULL DEFAULT 0,
        active_delta bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, livemode, currency, month)
      )`);
    await sql(`
      CREATE TABLE revenue_months (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        currency char(3) NOT NULL,
        month char(7) NOT NULL,
        gross bigint NOT NULL DEFAULT 0,
        refunds bigint NOT NULL DEFAULT 0,
        tax bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, livemode, currency, month)
      )`);
    // The summary's 30-day window reads at most 30 of these (and any of days after as_of).
    await sql(`
      CREATE TABLE daily_figures (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        currency char(3) NOT NULL,
        day date NOT NULL,
        -- Subscriptions whose last churn so far fell on this day: each counted once in a window.
        last_churns bigint NOT NULL DEFAULT 0,
        first_contributions bigint NOT NULL DEFAULT 0,
        contributing_delta bigint NOT NULL DEFAULT 0,
        gross bigint NOT NULL DEFAULT 0,
        refunds bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, livemode, currency, day)
      )`);
    await sql(`
      CREATE TABLE currency_totals (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        currency char(3) NOT NULL,
        mrr bigint NOT NULL DEFAULT 0,
        active bigint NOT NULL DEFAULT 0,
        trialing bigint NOT NULL DEFAULT 0,
        past_due bigint NOT NULL DEFAULT 0,
        customers bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, livemode, currency)
      )`);
    // How many contributing subscriptions each customer has: customers counts those above 0. No
    // CHECK (>= 0): PostgreSQL checks the row an upsert proposes (a delta, maybe -1) before it
    // finds the conflict that makes it an update.
    await sql(`
      CREATE TABLE customer_contributions (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        currency char(3) NOT NULL,
        customer_id text NOT NULL,
        contributing_subscriptions bigint NOT NULL,
        PRIMARY KEY (project_id, livemode, currency, customer_id)
      )`);
  },
};
