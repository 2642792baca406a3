import type { Migration } from '@billing/platform';

/**
 * Retention's scan of billing's outbox (docs/deployment.md, "Retention"): published rows that
 * carry no analytics facts, the only ones it deletes (those with facts are the history
 * ListAnalyticsEvents serves, migration 0080). Replaces the platform's index of all published
 * rows, which would have the pass step over every kept fact at each run.
 */
export const indexOutboxRetention: Migration = {
  name: '0090-index-outbox-retention',
  async up({ sql }) {
    await sql(`DROP INDEX IF EXISTS outbox_events_published`);
    await sql(`
      CREATE INDEX outbox_events_published ON outbox_events (published_at)
       WHERE published_at IS NOT NULL AND NOT (payload ? 'analytics')`);
  },
};
