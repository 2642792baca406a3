import type { Migration } from '@billing/platform';

/**
 * The recorded events that carry analytics facts (docs/api-behaviour.md §25), which
 * ListAnalyticsEvents pages through by seq for a rebuild of the analytics read model
 * (AnalyticsEventRepository): a partial index of those rows alone, so a page reads its rows in
 * order without scanning the events that carry none (customer.*, invoice.created, ...).
 */
export const indexAnalyticsEvents: Migration = {
  name: '0080-index-analytics-events',
  async up({ sql }) {
    await sql(`CREATE INDEX outbox_events_analytics ON outbox_events (seq) WHERE payload ? 'analytics'`);
  },
};
