import type { Migration } from '@billing/platform';

/** Coupons and their redemptions (docs/api-behaviour.md §19). */
export const createCoupons: Migration = {
  name: '0004-create-coupons',
  async up({ sql }) {
    // percent_off is an exact decimal (numeric), never a float. The CHECKs repeat the domain's
    // rules so that no writer can store a coupon the redemption would misread; the last one is
    // the backstop of "times_redeemed never exceeds max_redemptions".
    await sql(`
      CREATE TABLE coupons (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        code text NOT NULL CHECK (code ~ '^[A-Z0-9_-]{3,40}$'),
        name text,
        percent_off numeric(5, 2) CHECK (percent_off > 0 AND percent_off <= 100),
        amount_off bigint CHECK (amount_off > 0),
        currency char(3),
        duration text NOT NULL CHECK (duration IN ('ONCE', 'REPEATING', 'FOREVER')),
        duration_in_periods integer CHECK (duration_in_periods BETWEEN 1 AND 120),
        max_redemptions integer CHECK (max_redemptions >= 1),
        times_redeemed integer NOT NULL DEFAULT 0 CHECK (times_redeemed >= 0),
        redeem_by timestamptz,
        plan_ids uuid[] NOT NULL DEFAULT '{}',
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (project_id, livemode, code),
        CHECK ((percent_off IS NULL) <> (amount_off IS NULL)),
        CHECK ((amount_off IS NULL) = (currency IS NULL)),
        CHECK ((duration = 'REPEATING') = (duration_in_periods IS NOT NULL)),
        CHECK (max_redemptions IS NULL OR times_redeemed <= max_redemptions)
      )`);
    await sql(`CREATE INDEX coupons_scope_recent ON coupons (project_id, livemode, created_at DESC, id DESC)`);

    // One row per thing a coupon was redeemed for. The unique key makes a redemption idempotent;
    // RELEASED means it was given back (times_redeemed went down with it) and may count again.
    await sql(`
      CREATE TABLE coupon_redemptions (
        id uuid PRIMARY KEY,
        coupon_id uuid NOT NULL REFERENCES coupons (id),
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        redemption_key text NOT NULL,
        status text NOT NULL CHECK (status IN ('ACTIVE', 'RELEASED')),
        created_at timestamptz NOT NULL,
        released_at timestamptz,
        UNIQUE (coupon_id, redemption_key)
      )`);
    await sql(
      `CREATE INDEX coupon_redemptions_key ON coupon_redemptions (project_id, livemode, redemption_key) WHERE status = 'ACTIVE'`,
    );
  },
};
