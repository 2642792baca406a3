import type { Migration } from '@billing/platform';

export const createPaymentsAndRefunds: Migration = {
  name: '0004-create-payments-and-refunds',
  async up({ sql }) {
    // Every provider transaction billing has acted on. The unique reference means one provider
    // payment pays for one thing only, and a charge is recorded at most once.
    await sql(`
      CREATE TABLE payments (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        reference text NOT NULL UNIQUE,
        purpose text NOT NULL CHECK (purpose IN ('INVOICE', 'VERIFICATION')),
        customer_id uuid NOT NULL REFERENCES customers (id),
        invoice_id uuid REFERENCES invoices (id),
        amount bigint NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        gateway_response text,
        provider_response jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await sql(`CREATE INDEX payments_invoice ON payments (invoice_id) WHERE invoice_id IS NOT NULL`);

    // A refund is recorded (PENDING) in the transaction that decides it and issued after commit.
    // Its unique reference and the PENDING -> PROCESSING claim make sure it is issued once.
    await sql(`
      CREATE TABLE refunds (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        reference text NOT NULL UNIQUE,
        payment_id uuid NOT NULL REFERENCES payments (id),
        transaction_reference text NOT NULL,
        invoice_id uuid REFERENCES invoices (id),
        subscription_id uuid REFERENCES subscriptions (id),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        reason text NOT NULL CHECK (reason IN ('VERIFICATION', 'CANCELLATION')),
        status text NOT NULL CHECK (status IN ('PENDING', 'PROCESSING', 'PROCESSED', 'FAILED')),
        provider_refund_id text,
        failure_reason text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        processed_at timestamptz
      )`);
    await sql(`CREATE INDEX refunds_unsettled ON refunds (created_at) WHERE status IN ('PENDING', 'PROCESSING')`);
  },
};
