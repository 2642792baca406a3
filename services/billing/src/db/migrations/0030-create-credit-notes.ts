import type { Migration } from '@billing/platform';

/**
 * Credit notes (docs/api-behaviour.md §23): what a PAID invoice gave back, to the card or to the
 * customer's balance. A note is written once and never changes (status ISSUED). Its number is
 * unique per invoice (`<invoice number>-CN<n>`), taken under the invoice's row lock. Refunds and
 * balance entries gain the reason and the type a note gives them.
 */
export const createCreditNotes: Migration = {
  name: '0030-create-credit-notes',
  async up({ sql }) {
    await sql(`
      CREATE TABLE credit_notes (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        invoice_id uuid NOT NULL REFERENCES invoices (id),
        customer_id uuid NOT NULL REFERENCES customers (id),
        number text NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        tax jsonb NOT NULL DEFAULT '[]'::jsonb,
        reason text NOT NULL
          CHECK (reason IN ('DUPLICATE', 'FRAUDULENT', 'ORDER_CHANGE', 'PRODUCT_UNSATISFACTORY')),
        refund_to text NOT NULL CHECK (refund_to IN ('CARD', 'BALANCE')),
        refund_id uuid REFERENCES refunds (id),
        balance_transaction_id uuid REFERENCES customer_balance_transactions (id),
        memo text CHECK (char_length(memo) <= 500),
        status text NOT NULL CHECK (status IN ('ISSUED')),
        created_at timestamptz NOT NULL,
        CONSTRAINT credit_notes_number_per_invoice UNIQUE (invoice_id, number),
        -- Each note went somewhere, exactly one place: a refund to the card or a balance credit.
        CONSTRAINT credit_notes_settled CHECK (
          (refund_to = 'CARD' AND refund_id IS NOT NULL AND balance_transaction_id IS NULL) OR
          (refund_to = 'BALANCE' AND balance_transaction_id IS NOT NULL AND refund_id IS NULL))
      )`);
    // GET /credit-notes pages newest first within a project and mode, filtered by customer.
    await sql(`CREATE INDEX credit_notes_scope ON credit_notes (project_id, livemode, created_at DESC, id DESC)`);
    await sql(`CREATE INDEX credit_notes_customer ON credit_notes (customer_id, created_at DESC)`);
    // One note per refund: a refund the platform made is recorded by one note, never two.
    await sql(`CREATE UNIQUE INDEX credit_notes_refund ON credit_notes (refund_id) WHERE refund_id IS NOT NULL`);

    // A note to the card is a refund of reason CREDIT_NOTE; a note to the balance, an entry of type CREDIT_NOTE.
    await sql(`ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check`);
    await sql(`
      ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check
        CHECK (reason IN ('VERIFICATION', 'CANCELLATION', 'ABANDONED_CHARGE', 'UNUSED_CHECKOUT_PAYMENT', 'CREDIT_NOTE'))`);
    await sql(`ALTER TABLE customer_balance_transactions DROP CONSTRAINT customer_balance_transactions_type_check`);
    await sql(`
      ALTER TABLE customer_balance_transactions ADD CONSTRAINT customer_balance_transactions_type_check
        CHECK (type IN ('ADJUSTMENT', 'PRORATION_CREDIT', 'APPLIED_TO_INVOICE', 'CREDIT_NOTE'))`);
  },
};
