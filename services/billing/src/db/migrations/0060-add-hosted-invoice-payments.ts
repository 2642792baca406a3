import type { Migration } from '@billing/platform';

/**
 * "Pay" on the hosted invoice page (docs/api-behaviour.md §22): each payment the page starts at
 * the provider, until billing has applied it once (PAID: it paid the invoice; REFUNDED: the
 * invoice was paid or closed first; NOT_PAID: it failed). A second payment of a paid invoice is
 * refunded with a DUPLICATE credit note of its own (§23): the note credits that payment, not the
 * invoice, so it counts in none of the invoice's limits (`credits_second_payment`), and its
 * refund is of that payment (reason DUPLICATE_PAYMENT), not of the invoice's.
 */
export const addHostedInvoicePayments: Migration = {
  name: '0060-add-hosted-invoice-payments',
  async up({ sql }) {
    await sql(`
      CREATE TABLE hosted_invoice_payments (
        reference text PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        invoice_id uuid NOT NULL REFERENCES invoices (id),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        state text NOT NULL CHECK (state IN ('STARTED', 'PAID', 'REFUNDED', 'NOT_PAID')),
        created_at timestamptz NOT NULL,
        -- When billing last asked the provider about it (its sweep asks the oldest first).
        checked_at timestamptz NOT NULL,
        settled_at timestamptz
      )`);
    await sql(
      `CREATE INDEX hosted_invoice_payments_started ON hosted_invoice_payments (checked_at) WHERE state = 'STARTED'`,
    );
    await sql(`CREATE INDEX hosted_invoice_payments_invoice ON hosted_invoice_payments (invoice_id)`);

    await sql(`ALTER TABLE credit_notes ADD COLUMN credits_second_payment boolean NOT NULL DEFAULT false`);
    await sql(`ALTER TABLE payments DROP CONSTRAINT payments_purpose_check`);
    await sql(`
      ALTER TABLE payments ADD CONSTRAINT payments_purpose_check
        CHECK (purpose IN ('INVOICE', 'VERIFICATION', 'UNUSED_CHECKOUT', 'SECOND_INVOICE_PAYMENT'))`);
    await sql(`ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check`);
    await sql(`
      ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check
        CHECK (reason IN ('VERIFICATION', 'CANCELLATION', 'ABANDONED_CHARGE', 'UNUSED_CHECKOUT_PAYMENT', 'CREDIT_NOTE',
                          'DUPLICATE_PAYMENT'))`);
  },
};
