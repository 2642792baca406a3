import type { Migration } from '@billing/platform';

/**
 * The seller and the buyer of invoices (docs/api-behaviour.md §22): billing's copy of each
 * project's seller, kept from identity's merchant.seller_details_updated (or asked of identity
 * once, for a project without one yet); the customers' buyer details; and on every invoice both
 * as they were when it was created. Invoices created before have neither: billing did not know
 * the seller then, and customers had no details.
 */
export const addInvoiceParties: Migration = {
  name: '0050-add-invoice-parties',
  async up({ sql }) {
    // One row per project (both modes show the same seller); updated_at is the merchant's last
    // change as identity stamped it, so a copy is replaced only by a later one.
    await sql(`
      CREATE TABLE project_sellers (
        project_id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        name text NOT NULL,
        legal_name text,
        business_name text NOT NULL,
        address jsonb,
        tax_id text,
        support_email text,
        invoice_footer text,
        updated_at timestamptz NOT NULL,
        kept_at timestamptz NOT NULL
      )`);
    await sql(`
      ALTER TABLE customers
        ADD COLUMN address jsonb,
        ADD COLUMN tax_id text CHECK (char_length(tax_id) BETWEEN 1 AND 40),
        ADD COLUMN preferred_locale text NOT NULL DEFAULT 'en' CHECK (preferred_locale IN ('en', 'fr'))`);
    await sql(`ALTER TABLE invoices ADD COLUMN seller jsonb, ADD COLUMN buyer jsonb`);
  },
};
