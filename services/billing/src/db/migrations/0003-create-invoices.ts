import type { Migration } from '@billing/platform';

export const createInvoices: Migration = {
  name: '0003-create-invoices',
  async up({ sql }) {
    await sql(`
      CREATE TABLE invoices (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        number text NOT NULL,
        subscription_id uuid NOT NULL REFERENCES subscriptions (id),
        customer_id uuid NOT NULL REFERENCES customers (id),
        status text NOT NULL CHECK (status IN ('DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE')),
        currency char(3) NOT NULL,
        subtotal bigint NOT NULL CHECK (subtotal >= 0),
        amount bigint NOT NULL CHECK (amount >= 0),
        amount_paid bigint NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
        amount_refunded bigint NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0 AND amount_refunded <= amount_paid),
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        due_date timestamptz NOT NULL,
        paid_at timestamptz,
        attempt_count integer NOT NULL DEFAULT 0,
        next_payment_attempt timestamptz,
        transaction_reference text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (project_id, livemode, number),
        -- One invoice per subscription per period (docs/api-behaviour.md §8), whoever races to bill it.
        UNIQUE (subscription_id, period_start)
      )`);
    await sql(`CREATE INDEX invoices_scope_recent ON invoices (project_id, livemode, created_at DESC, id DESC)`);
    await sql(`CREATE INDEX invoices_customer ON invoices (customer_id, created_at DESC)`);

    await sql(`
      CREATE TABLE invoice_lines (
        id uuid PRIMARY KEY,
        invoice_id uuid NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
        position integer NOT NULL,
        type text NOT NULL CHECK (type IN ('SUBSCRIPTION', 'USAGE', 'FEE')),
        description text NOT NULL,
        quantity numeric NOT NULL,
        unit_amount bigint NOT NULL,
        amount bigint NOT NULL,
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        UNIQUE (invoice_id, position)
      )`);

    // Gap-free numbering: the counter row is incremented inside the invoice's own transaction,
    // so its row lock serializes concurrent invoices of a project and a rollback returns the number.
    await sql(`
      CREATE TABLE invoice_counters (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        last_number bigint NOT NULL,
        PRIMARY KEY (project_id, livemode)
      )`);
  },
};
