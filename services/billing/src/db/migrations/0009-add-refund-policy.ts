import type { Migration } from '@billing/platform';

export const addRefundPolicy: Migration = {
  name: '0009-add-refund-policy',
  async up({ sql }) {
    // The cancellation policy that decided a cancel-now refund (docs/api-behaviour.md §16.4). Not a foreign
    // key: policies live in the policy service's database, and a deleted policy leaves the
    // refunds it decided as they were.
    await sql(`ALTER TABLE refunds ADD COLUMN policy_id uuid`);
    // A period's refundable amount subtracts the refunds of its invoice still in flight.
    await sql(`CREATE INDEX refunds_invoice ON refunds (invoice_id) WHERE invoice_id IS NOT NULL`);
  },
};
