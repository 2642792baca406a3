/**
 * Billing's outbox retention (docs/deployment.md, "Retention"): published events go after
 * RETENTION_OUTBOX_DAYS, except those carrying analytics facts, the history ListAnalyticsEvents
 * serves to `npm run analytics:rebuild`, which stay however old; the pass reads billing's index.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { applyRetention, outboxRetention, RetentionRepository } from '@billing/platform';
import { dropDatabases, uniqueRunId } from '@billing/testing';
import { ANALYTICS_FACT_ROWS, AnalyticsEventRepository } from '../src/db/repositories/analytics-event.repository';
import { openBillingTestDatabase } from './support/billing-database';

const NOW = new Date('2026-11-28T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 24 * 60 * 60 * 1000);

describe("billing's outbox retention keeps the analytics history", () => {
  const runId = uniqueRunId('outboxret');
  let sequelize: Sequelize;

  beforeAll(async () => {
    sequelize = await openBillingTestDatabase(runId, 'outbox-retention-test');
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  const event = async (label: string, at: Date, published: boolean, payload: object) => {
    await sequelize.query(
      `INSERT INTO outbox_events (id, event_type, payload, created_at, published_at) VALUES ($1, $2, $3, $4, $5)`,
      { bind: [randomUUID(), label, JSON.stringify({ id: label, ...payload }), at, published ? at : null] },
    );
  };
  const labels = async () =>
    (
      await sequelize.query<{ event_type: string }>('SELECT event_type FROM outbox_events ORDER BY event_type', {
        type: QueryTypes.SELECT,
      })
    ).map((r) => r.event_type);

  it('deletes old published events without facts and keeps every fact-bearing, young or unpublished one', async () => {
    await event('customer.old', daysAgo(30), true, { data: {} });
    await event('invoice.old', daysAgo(8), true, { data: {} });
    await event('invoice.paid.fact.old', daysAgo(400), true, { data: {}, analytics: { facts: [] } });
    await event('invoice.young', daysAgo(2), true, { data: {} });
    await event('invoice.unpublished', daysAgo(30), false, { data: {} });

    const deleted = await applyRetention(
      new RetentionRepository(sequelize),
      [outboxRetention(7, { keep: ANALYTICS_FACT_ROWS })],
      { now: NOW, batchSize: 1 },
    );
    expect(deleted).toEqual({ outbox_events: 2 });
    expect(await labels()).toEqual(['invoice.paid.fact.old', 'invoice.unpublished', 'invoice.young']);
    // The rebuild's history still pages through the fact.
    const history = await new AnalyticsEventRepository(sequelize).listAfter(0, 10);
    expect(history.map((row) => (JSON.parse(row.envelopeJson) as { id: string }).id)).toEqual([
      'invoice.paid.fact.old',
    ]);
  });

  it("finds the rows to delete through billing's index of published events without facts", async () => {
    const rule = outboxRetention(7, { keep: ANALYTICS_FACT_ROWS });
    const rows = await sequelize.transaction(async (transaction) => {
      await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
      return sequelize.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT ctid FROM outbox_events WHERE ${rule.expired.replace('$1', `'${NOW.toISOString()}'`)}`,
        { transaction, type: QueryTypes.SELECT },
      );
    });
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/outbox_events_published/);
    expect(plan).not.toMatch(/Filter/);
  });
});
