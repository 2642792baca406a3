import type { Migration } from '@billing/platform';

/**
 * A subscription's discount (docs/api-behaviour.md §19); the DISCOUNT line type came with 0013.
 */
export const addSubscriptionDiscounts: Migration = {
  name: '0014-add-subscription-discounts',
  async up({ sql }) {
    // The coupon's terms as catalog answered them at redemption (a coupon deactivated or changed
    // later does not touch a discount already given), and how many period invoices it still
    // discounts: null for FOREVER. The row has no discount when discount_coupon_id is null.
    await sql(`
      ALTER TABLE subscriptions
        ADD COLUMN discount_coupon_id uuid,
        ADD COLUMN discount_code text,
        ADD COLUMN discount_percent_off numeric(5, 2) CHECK (discount_percent_off > 0 AND discount_percent_off <= 100),
        ADD COLUMN discount_amount_off bigint CHECK (discount_amount_off > 0),
        ADD COLUMN discount_currency char(3),
        ADD COLUMN discount_duration text CHECK (discount_duration IN ('ONCE', 'REPEATING', 'FOREVER')),
        ADD COLUMN discount_periods_remaining integer CHECK (discount_periods_remaining >= 1),
        ADD CONSTRAINT subscriptions_discount_whole CHECK (
          (discount_coupon_id IS NULL) = (discount_code IS NULL)
          AND (discount_coupon_id IS NULL) = (discount_duration IS NULL)
          AND (discount_coupon_id IS NULL OR (discount_percent_off IS NULL) <> (discount_amount_off IS NULL))
          AND ((discount_duration = 'FOREVER') IS NOT TRUE OR discount_periods_remaining IS NULL)
        )`);
  },
};
