import type { Migration } from '@billing/platform';

/**
 * A subscription's OPEN invoices, for the scheduler's "no OPEN invoice" test of every due
 * subscription it claims (due-work.repository.ts). Without it that test read the whole invoices
 * table once per claim, so a backlog of due renewals cost each claim more as invoices grew.
 * OPEN invoices are few (renewals in flight and dunning), so the index stays small.
 */
export const indexOpenInvoicesOfSubscription: Migration = {
  name: '0016-index-open-invoices-of-subscription',
  async up({ sql }) {
    await sql(`CREATE INDEX invoices_open_of_subscription ON invoices (subscription_id) WHERE status = 'OPEN'`);
  },
};
