import type { Migration } from '@billing/platform';

/**
 * The trace of the event a delivery is for (W3C traceparent/tracestate), so each attempt, made
 * later by any replica, is a span of that trace (docs/decisions.md, "One trace per request").
 */
export const deliveryTraceContext: Migration = {
  name: '0003-delivery-trace-context',
  async up({ sql }) {
    await sql(`ALTER TABLE deliveries ADD COLUMN trace_headers jsonb NOT NULL DEFAULT '{}'::jsonb`);
  },
};
