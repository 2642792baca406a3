import type { Migration } from '@billing/platform';

export const createPortalTables: Migration = {
  name: '0001-create-portal-tables',
  async up({ sql }) {
    // One configuration per project and mode (docs/api-behaviour.md §24); none = the defaults.
    await sql(`
      CREATE TABLE portal_configurations (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        cancellation text NOT NULL CHECK (cancellation IN ('NONE', 'AT_PERIOD_END', 'IMMEDIATELY')),
        plan_change_enabled boolean NOT NULL,
        plan_change_plan_ids uuid[] NOT NULL,
        plan_change_proration text NOT NULL CHECK (plan_change_proration IN ('IMMEDIATE', 'NONE')),
        payment_method_update boolean NOT NULL,
        billing_details_update boolean NOT NULL,
        headline text CHECK (char_length(headline) <= 100),
        return_url_default text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (project_id, livemode)
      )`);
    // A session: the URL the API answered (its token hashed, once, until link_expires_at) and the
    // browser session it opened (the cookie's token hashed, alive while last_seen_at is recent).
    await sql(`
      CREATE TABLE portal_sessions (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        merchant_id uuid NOT NULL,
        customer_id uuid NOT NULL,
        return_url text,
        link_token_hash text UNIQUE,
        link_expires_at timestamptz NOT NULL,
        link_used_at timestamptz,
        browser_token_hash text UNIQUE,
        csrf_token text,
        last_seen_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK ((browser_token_hash IS NULL) = (csrf_token IS NULL))
      )`);
  },
};
