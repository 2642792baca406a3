import type { Migration } from '@billing/platform';

/**
 * Only invoices with a charge scheduled are due: a renewal invoice whose charge is claimed as it
 * is created (next_payment_attempt NULL) and a paid one no longer cost an index entry.
 */
export const narrowInvoicesDueIndex: Migration = {
  name: '0010-narrow-invoices-due-index',
  async up({ sql }) {
    await sql(`DROP INDEX invoices_due`);
    await sql(
      `CREATE INDEX invoices_due ON invoices (next_payment_attempt)
       WHERE status = 'OPEN' AND next_payment_attempt IS NOT NULL`,
    );
  },
};
