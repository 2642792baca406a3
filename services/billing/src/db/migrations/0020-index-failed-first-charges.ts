import type { Migration } from '@billing/platform';

/**
 * Failed payments of no invoice (first charges that failed or were never charged), which
 * first-charge settlement looks up again every pass for a late landing
 * (PaymentRepository.neverChargedFirstCharges): few rows, so each pass reads a small index
 * instead of every payment.
 */
export const indexFailedFirstCharges: Migration = {
  name: '0020-index-failed-first-charges',
  async up({ sql }) {
    await sql(
      `CREATE INDEX payments_failed_first_charges ON payments (updated_at) WHERE status = 'FAILED' AND invoice_id IS NULL`,
    );
  },
};
