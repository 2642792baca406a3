import type { Migration } from '@billing/platform';

/**
 * Customer balance (credit) and the money columns every invoice now carries
 * (docs/api-behaviour.md §20; the order of operations lives in domain/invoice-totals.ts).
 */
export const addCustomerBalance: Migration = {
  name: '0013-add-customer-balance',
  async up({ sql }) {
    // Credit the merchant owes the customer, in minor units; never below 0 (the ledger refuses).
    await sql(`
      ALTER TABLE customers
        ADD COLUMN balance bigint NOT NULL DEFAULT 0 CONSTRAINT customers_balance_not_negative CHECK (balance >= 0)`);

    // Every change of a balance, with the balance it left: merchant adjustments, the credit of a
    // downgrade's proration, and credit used by an invoice. Written only by
    // CustomerBalanceRepository.change, which holds the customer row's lock while it does.
    await sql(`
      CREATE TABLE customer_balance_transactions (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers (id),
        type text NOT NULL CHECK (type IN ('ADJUSTMENT', 'PRORATION_CREDIT', 'APPLIED_TO_INVOICE')),
        amount bigint NOT NULL CHECK (amount <> 0),
        balance_after bigint NOT NULL CHECK (balance_after >= 0),
        description text,
        invoice_id uuid REFERENCES invoices (id),
        created_at timestamptz NOT NULL
      )`);
    // GET /customers/{id}/balance-adjustments pages a customer's history newest first (findPage).
    await sql(`
      CREATE INDEX customer_balance_transactions_customer_recent
        ON customer_balance_transactions (customer_id, created_at DESC, id DESC)`);

    // subtotal - discount = amount; amount - credit_applied = amount_due, what the card is
    // charged. A downgrade's proration invoice may total below 0 (its credit goes to the
    // balance, §18), so subtotal and amount lose their ">= 0"; amount_due never goes below 0.
    await sql(`
      ALTER TABLE invoices
        ADD COLUMN discount bigint NOT NULL DEFAULT 0 CHECK (discount >= 0),
        ADD COLUMN credit_applied bigint NOT NULL DEFAULT 0 CHECK (credit_applied >= 0),
        ADD COLUMN amount_due bigint`);
    await sql(`UPDATE invoices SET amount_due = amount`);
    await sql(`ALTER TABLE invoices ALTER COLUMN amount_due SET NOT NULL`);
    await sql(`ALTER TABLE invoices DROP CONSTRAINT invoices_subtotal_check, DROP CONSTRAINT invoices_amount_check`);
    await sql(`
      ALTER TABLE invoices
        ADD CONSTRAINT invoices_amount_due_check
          CHECK (amount_due >= 0 AND amount_due = GREATEST(amount, 0) - credit_applied)`);
    // Not validated on the rows written before discounts existed (they all had subtotal = amount),
    // so a deployment never fails to migrate on an odd old row; every new row is checked.
    await sql(`
      ALTER TABLE invoices
        ADD CONSTRAINT invoices_amount_after_discount CHECK (amount = subtotal - discount) NOT VALID`);

    // Plan changes (§18) bill PRORATION lines (negative for unused time); coupons (§19) a
    // negative DISCOUNT line.
    await sql(`ALTER TABLE invoice_lines DROP CONSTRAINT invoice_lines_type_check`);
    await sql(`
      ALTER TABLE invoice_lines ADD CONSTRAINT invoice_lines_type_check
        CHECK (type IN ('SUBSCRIPTION', 'USAGE', 'FEE', 'PRORATION', 'DISCOUNT'))`);

    // A renewal marks its usage billed on the invoice it is about to create: the usage line is
    // one of the lines the invoice's totals are computed from (usecases/invoice-money.ts), so
    // the invoice row is written after the records name it, in the same transaction.
    await sql(`ALTER TABLE usage_records ALTER CONSTRAINT usage_records_invoice_id_fkey DEFERRABLE INITIALLY DEFERRED`);
  },
};
