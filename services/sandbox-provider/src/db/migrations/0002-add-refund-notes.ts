import type { Migration } from '@billing/platform';

export const addRefundNotes: Migration = {
  name: '0002-add-refund-notes',
  async up({ sql }) {
    // Paystack's POST /refund takes a merchant_note and shows it on every refund it lists: the
    // platform puts its own refund reference there, so it can find a refund whose answer it lost.
    await sql(`ALTER TABLE refunds ADD COLUMN merchant_note text`);
  },
};
