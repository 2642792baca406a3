/**
 * Retention of webhook deliveries (docs/deployment.md, "Retention"): finished ones (SUCCEEDED,
 * FAILED) older than RETENTION_DELIVERY_DAYS go with their attempts; a pending or retrying
 * delivery stays however old, as does every younger one.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { applyRetention, createLogger, openDatabase, RetentionRepository } from '@billing/platform';
import { dropDatabases, TEST_DATABASE_URL, uniqueRunId } from '@billing/testing';
import { notificationMigrations } from '../src/db/migrations';
import { finishedDeliveryRetention } from '../src/db/repositories/delivery.repository';

const NOW = new Date('2026-11-28T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 24 * 60 * 60 * 1000);

describe('retention of webhook deliveries', () => {
  const runId = uniqueRunId('deliveryret');
  let sequelize: Sequelize;
  const webhookId = randomUUID();
  const projectId = randomUUID();

  beforeAll(async () => {
    sequelize = await openDatabase({
      url: TEST_DATABASE_URL,
      database: `${runId}_notification`,
      models: [],
      migrations: notificationMigrations,
      logger: createLogger('delivery-retention-test', 'silent'),
      poolMax: 2,
    });
    await sequelize.query(
      `INSERT INTO webhooks (id, project_id, livemode, url, events, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, false, 'https://example.com/hook', ARRAY['*'], 'sealed', $3, $3)`,
      { bind: [webhookId, projectId, daysAgo(400)] },
    );
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  /** A delivery named by its event type, with `attempts` attempt rows. */
  const delivery = async (label: string, status: string, createdAt: Date, attempts: number) => {
    const id = randomUUID();
    await sequelize.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, project_id, livemode, event, body, status, attempts, created_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, false, $5, '{}', $6, $7, $8, $9)`,
      {
        bind: [
          id,
          randomUUID(),
          webhookId,
          projectId,
          label,
          status,
          attempts,
          createdAt,
          status === 'PENDING' || status === 'RETRYING' ? NOW : null,
        ],
      },
    );
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await sequelize.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt, at, status_code, duration_ms) VALUES ($1, $2, $3, 500, 10)`,
        { bind: [id, attempt, createdAt] },
      );
    }
  };
  const left = async () =>
    (
      await sequelize.query<{ event: string; attempts: number }>(
        `SELECT d.event, (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
           FROM deliveries d ORDER BY d.event`,
        { type: QueryTypes.SELECT },
      )
    ).map((r) => `${r.event}:${r.attempts}`);

  it('deletes finished deliveries older than the retention with their attempts, and nothing else', async () => {
    await delivery('succeeded-old', 'SUCCEEDED', daysAgo(31), 2);
    await delivery('failed-old', 'FAILED', daysAgo(45), 3);
    await delivery('failed-old-2', 'FAILED', daysAgo(50), 1);
    await delivery('succeeded-young', 'SUCCEEDED', daysAgo(29), 1);
    await delivery('pending-old', 'PENDING', daysAgo(90), 0);
    await delivery('retrying-old', 'RETRYING', daysAgo(90), 2);

    const repository = new RetentionRepository(sequelize);
    // A bounded batch first: two of the three.
    expect(await repository.deleteBatch(finishedDeliveryRetention(30), daysAgo(30), 2)).toBe(2);
    const deleted = await applyRetention(repository, [finishedDeliveryRetention(30)], { now: NOW, batchSize: 2 });
    expect(deleted).toEqual({ deliveries: 1 });
    expect(await left()).toEqual(['pending-old:0', 'retrying-old:2', 'succeeded-young:1']);
    const orphans = await sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = a.delivery_id)',
      { type: QueryTypes.SELECT },
    );
    expect(orphans[0].n).toBe(0);
  });

  it('finds them through the index of finished deliveries', async () => {
    const rule = finishedDeliveryRetention(30);
    const rows = await sequelize.transaction(async (transaction) => {
      await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
      return sequelize.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT ctid FROM deliveries WHERE ${rule.expired.replace('$1', `'${NOW.toISOString()}'`)}`,
        { transaction, type: QueryTypes.SELECT },
      );
    });
    expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/deliveries_finished/);
  });
});
