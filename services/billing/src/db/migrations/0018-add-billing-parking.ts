import type { Migration } from '@billing/platform';

/**
 * A subscription whose next billing step cannot be computed (its period's usage comes to more
 * than an invoice can hold, docs/api-behaviour.md §9) is parked: the scheduler leaves it until
 * its usage changes, instead of failing on it every pass.
 */
export const addBillingParking: Migration = {
  name: '0018-add-billing-parking',
  async up({ sql }) {
    await sql(
      `ALTER TABLE subscriptions ADD COLUMN billing_parked_at TIMESTAMPTZ, ADD COLUMN billing_parked_reason TEXT`,
    );
  },
};
