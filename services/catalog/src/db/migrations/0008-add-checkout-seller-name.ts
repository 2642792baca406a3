import type { Migration } from '@billing/platform';

/**
 * The seller's name a checkout session's page shows above the plan (docs/api-behaviour.md §22),
 * as billing gave it with the session's quote. Sessions made before have none (NULL): their page
 * shows no seller rather than one the session was not made with.
 */
export const addCheckoutSellerName: Migration = {
  name: '0008-add-checkout-seller-name',
  async up({ sql }) {
    await sql(`ALTER TABLE checkout_sessions ADD COLUMN seller_name text`);
  },
};
