import type { Migration } from '@billing/platform';

/** A checkout session's coupon and its "Promotion code" field (docs/api-behaviour.md §19). */
export const addCheckoutSessionCoupons: Migration = {
  name: '0005-add-checkout-session-coupons',
  async up({ sql }) {
    await sql(`ALTER TABLE checkout_sessions ADD COLUMN allow_promotion_codes boolean NOT NULL DEFAULT false`);
    // The coupon's terms as redeemed for the session (redemption key checkout:<session id>): the
    // page prices with them and completion hands them to billing, whatever happens to the coupon.
    await sql(`ALTER TABLE checkout_sessions ADD COLUMN coupon jsonb`);
  },
};
