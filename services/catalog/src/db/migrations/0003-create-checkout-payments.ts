import type { Migration } from '@billing/platform';

export const createCheckoutPayments: Migration = {
  name: '0003-create-checkout-payments',
  async up({ sql }) {
    // Every provider transaction a session's "Pay" started (docs/payment-recovery.md). Only these
    // references can complete the session; each is followed until it is USED (completed the
    // session), REFUNDED by billing (it completed nothing), or NOT_PAID at the provider.
    await sql(`
      CREATE TABLE checkout_payments (
        reference text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES checkout_sessions (id),
        state text NOT NULL CHECK (state IN ('STARTED', 'USED', 'REFUNDED', 'NOT_PAID')),
        started_at timestamptz NOT NULL,
        checked_at timestamptz
      )`);
    await sql(`CREATE INDEX checkout_payments_session ON checkout_payments (session_id)`);
    await sql(`CREATE INDEX checkout_payments_started ON checkout_payments (started_at) WHERE state = 'STARTED'`);
  },
};
