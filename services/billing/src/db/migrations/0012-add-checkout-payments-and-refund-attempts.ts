import type { Migration } from '@billing/platform';

/**
 * Checkout payments that completed nothing, and refunds sent exactly once (docs/payment-recovery.md).
 */
export const addCheckoutPaymentsAndRefundAttempts: Migration = {
  name: '0012-add-checkout-payments-and-refund-attempts',
  async up({ sql }) {
    // The checkout session a payment was made for. One payment completes a session (the unique
    // index); any other successful payment of it is UNUSED_CHECKOUT and refunded. A payment made
    // after its session expired has no customer: none was created for it.
    await sql(`ALTER TABLE payments ADD COLUMN checkout_session_id uuid`);
    await sql(`ALTER TABLE payments ALTER COLUMN customer_id DROP NOT NULL`);
    await sql(`ALTER TABLE payments DROP CONSTRAINT payments_purpose_check`);
    await sql(`
      ALTER TABLE payments ADD CONSTRAINT payments_purpose_check
        CHECK (purpose IN ('INVOICE', 'VERIFICATION', 'UNUSED_CHECKOUT'))`);
    await sql(`
      CREATE UNIQUE INDEX payments_checkout_completion ON payments (checkout_session_id)
       WHERE checkout_session_id IS NOT NULL AND purpose <> 'UNUSED_CHECKOUT'`);
    await sql(`ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check`);
    await sql(`
      ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check
        CHECK (reason IN ('VERIFICATION', 'CANCELLATION', 'ABANDONED_CHARGE', 'UNUSED_CHECKOUT_PAYMENT'))`);
    // How many times the refund was handed to the provider (or may have been: the count rises
    // before the call). Above zero, the provider's list of refunds is read before sending again.
    await sql(`ALTER TABLE refunds ADD COLUMN attempts integer NOT NULL DEFAULT 0`);
    // The sweep of refunds a crash left PROCESSING.
    await sql(`CREATE INDEX refunds_processing ON refunds (updated_at) WHERE status = 'PROCESSING'`);
  },
};
