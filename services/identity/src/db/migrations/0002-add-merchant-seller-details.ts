import type { Migration } from '@billing/platform';

/**
 * The seller details of docs/api-behaviour.md §22, null until given. The address is one value
 * (set, replaced and cleared as a whole), so it is one jsonb column in the API's shape.
 */
export const addMerchantSellerDetails: Migration = {
  name: '0002-add-merchant-seller-details',
  async up({ sql }) {
    await sql(`ALTER TABLE merchants ADD COLUMN legal_name text, ADD COLUMN address jsonb, ADD COLUMN tax_id text,
      ADD COLUMN support_email text, ADD COLUMN invoice_footer text`);
  },
};
