import type { Migration } from '@billing/platform';

/**
 * Taxes (docs/api-behaviour.md §21): the tax rates of a project and mode, the customer's
 * exemption, the rates a subscription carries, and the tax of every invoice as it was when the
 * invoice was made (the order of operations lives in domain/invoice-totals.ts).
 */
export const addTaxes: Migration = {
  name: '0021-add-taxes',
  async up({ sql }) {
    // percentage and inclusive never change once created (an invoice snapshot still names the
    // rate); a rate is deactivated, never deleted.
    await sql(`
      CREATE TABLE tax_rates (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        display_name text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 50),
        percentage numeric(6, 4) NOT NULL CHECK (percentage >= 0 AND percentage < 100),
        inclusive boolean NOT NULL,
        country char(2) CHECK (country ~ '^[A-Z]{2}$'),
        jurisdiction text CHECK (char_length(jurisdiction) <= 50),
        description text CHECK (char_length(description) <= 200),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // GET /tax-rates pages a project's rates newest first (findPage).
    await sql(`CREATE INDEX tax_rates_scope_recent ON tax_rates (project_id, livemode, created_at DESC, id DESC)`);

    await sql(`
      ALTER TABLE customers
        ADD COLUMN tax_exempt text NOT NULL DEFAULT 'NONE' CHECK (tax_exempt IN ('NONE', 'EXEMPT', 'REVERSE'))`);

    // The subscription's own rates, in the order its invoices show them; NULL = its plan's.
    await sql(`
      ALTER TABLE subscriptions
        ADD COLUMN tax_rate_ids uuid[] CHECK (cardinality(tax_rate_ids) <= 5)`);

    // amount is now the invoice total: subtotal - discount + the exclusive taxes, which is
    // total_excluding_tax + tax. Every invoice made before had no tax: its total excluding tax
    // is its amount.
    await sql(`
      ALTER TABLE invoices
        ADD COLUMN tax bigint NOT NULL DEFAULT 0,
        ADD COLUMN total_excluding_tax bigint,
        ADD COLUMN total_tax_amounts jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN tax_note text`);
    await sql(`UPDATE invoices SET total_excluding_tax = amount`);
    await sql(`ALTER TABLE invoices ALTER COLUMN total_excluding_tax SET NOT NULL`);
    await sql(`ALTER TABLE invoices DROP CONSTRAINT invoices_amount_after_discount`);
    await sql(
      `ALTER TABLE invoices ADD CONSTRAINT invoices_amount_with_tax CHECK (amount = total_excluding_tax + tax)`,
    );

    // The rates that applied to each line: the invoice's.
    await sql(`ALTER TABLE invoice_lines ADD COLUMN tax_rate_ids uuid[] NOT NULL DEFAULT '{}'`);
  },
};
