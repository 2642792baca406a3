import type { Migration } from '@billing/platform';

export const createCancellationPolicies: Migration = {
  name: '0001-create-cancellation-policies',
  async up({ sql }) {
    await sql(`
      CREATE TABLE cancellation_policies (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        name text NOT NULL,
        refund_type text NOT NULL CHECK (refund_type IN ('NONE', 'FULL', 'PARTIAL')),
        refund_percentage numeric(5, 2) CHECK (refund_percentage BETWEEN 0 AND 100),
        refund_window_days integer NOT NULL DEFAULT 0 CHECK (refund_window_days >= 0),
        prorate_refund boolean NOT NULL DEFAULT false,
        cancellation_fee bigint NOT NULL DEFAULT 0 CHECK (cancellation_fee >= 0),
        apply_to_existing boolean NOT NULL DEFAULT false,
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        -- Only PARTIAL uses a percentage; a stale one must not come back when the type changes.
        CHECK ((refund_type = 'PARTIAL') = (refund_percentage IS NOT NULL))
      )`);
    // Every list is "this project and mode, newest first".
    await sql(
      `CREATE INDEX cancellation_policies_scope_recent
         ON cancellation_policies (project_id, livemode, created_at DESC, id DESC)`,
    );
    // At most one default per project and mode, whatever the application does; also the
    // lookup of QuoteRefund's default.
    await sql(
      `CREATE UNIQUE INDEX cancellation_policies_one_default
         ON cancellation_policies (project_id, livemode) WHERE is_default`,
    );
  },
};
