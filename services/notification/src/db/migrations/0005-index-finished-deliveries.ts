import type { Migration } from '@billing/platform';

/**
 * Retention's scan of finished deliveries (docs/deployment.md, "Retention"): the SUCCEEDED and
 * FAILED ones by age; a pending or retrying delivery is never in it.
 */
export const indexFinishedDeliveries: Migration = {
  name: '0005-index-finished-deliveries',
  async up({ sql }) {
    await sql(`CREATE INDEX deliveries_finished ON deliveries (created_at) WHERE status IN ('SUCCEEDED', 'FAILED')`);
  },
};
