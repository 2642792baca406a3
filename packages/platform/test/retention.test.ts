/**
 * Retention (docs/deployment.md, "Retention") on a real PostgreSQL: published outbox events and
 * replayed parked events past their days go, a bounded batch at a time, through their indexes;
 * younger rows, unpublished events and parked events never replayed stay.
 */
import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize-typescript';
import { QueryTypes } from 'sequelize';
import {
  applyRetention,
  createLogger,
  openDatabase,
  outboxMigrations,
  outboxRetention,
  parkedEventRetention,
  parkedEventRetentionIndexMigration,
  parkedEventsMigration,
  RetentionRepository,
  startRetention,
  type Clock,
} from '@billing/platform';
import { dropDatabases, TEST_DATABASE_URL, uniqueRunId } from '@billing/testing';

const NOW = new Date('2026-11-28T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 24 * 60 * 60 * 1000);

describe('retention of outbox and parked events', () => {
  const runId = uniqueRunId('retention');
  let sequelize: Sequelize;
  let database = 0;

  /** A fresh database of the platform's outbox and parked events tables. */
  async function freshDatabase(): Promise<Sequelize> {
    await sequelize?.close();
    database += 1;
    sequelize = await openDatabase({
      url: TEST_DATABASE_URL,
      database: `${runId}_${database}`,
      models: [],
      migrations: [...outboxMigrations, parkedEventsMigration, parkedEventRetentionIndexMigration],
      logger: createLogger('retention-test', 'silent'),
      poolMax: 2,
    });
    return sequelize;
  }

  async function outboxRow(label: string, createdAt: Date, publishedAt: Date | null, payload: object = {}) {
    await sequelize.query(
      `INSERT INTO outbox_events (id, event_type, payload, created_at, published_at) VALUES ($1, $2, $3, $4, $5)`,
      { bind: [randomUUID(), label, JSON.stringify(payload), createdAt, publishedAt] },
    );
  }

  async function parkedRow(label: string, parkedAt: Date, replayedAt: Date | null) {
    await sequelize.query(
      `INSERT INTO parked_events (consumer, stream, stream_sequence, subject, event_id, payload, error, deliveries, parked_at, replayed_at)
       VALUES ('c', 's', nextval(pg_get_serial_sequence('parked_events', 'id')), 'x', $1, '{}', 'e', 5, $2, $3)`,
      { bind: [label, parkedAt, replayedAt] },
    );
  }

  const outboxLabels = async () =>
    (
      await sequelize.query<{ event_type: string }>('SELECT event_type FROM outbox_events ORDER BY event_type', {
        type: QueryTypes.SELECT,
      })
    ).map((r) => r.event_type);
  const parkedLabels = async () =>
    (
      await sequelize.query<{ event_id: string }>('SELECT event_id FROM parked_events ORDER BY event_id', {
        type: QueryTypes.SELECT,
      })
    ).map((r) => r.event_id);

  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  it('deletes published outbox events older than the retention, never a younger or an unpublished one', async () => {
    await freshDatabase();
    for (let i = 0; i < 5; i++) await outboxRow(`old-${i}`, daysAgo(9), daysAgo(8));
    await outboxRow('young', daysAgo(6), daysAgo(6));
    await outboxRow('unpublished-old', daysAgo(30), null);
    const deleted = await applyRetention(new RetentionRepository(sequelize), [outboxRetention(7)], {
      now: NOW,
      batchSize: 2,
    });
    expect(deleted).toEqual({ outbox_events: 5 });
    expect(await outboxLabels()).toEqual(['unpublished-old', 'young']);
  });

  it('deletes at most a batch of rows per statement', async () => {
    await freshDatabase();
    for (let i = 0; i < 5; i++) await outboxRow(`old-${i}`, daysAgo(9), daysAgo(8));
    const repository = new RetentionRepository(sequelize);
    expect(await repository.deleteBatch(outboxRetention(7), daysAgo(7), 2)).toBe(2);
    expect(await outboxLabels()).toHaveLength(3);
  });

  it('keeps the rows its keep condition names, however old', async () => {
    await freshDatabase();
    await outboxRow('fact', daysAgo(90), daysAgo(90), { analytics: { kind: 'x' } });
    await outboxRow('plain', daysAgo(90), daysAgo(90), { data: {} });
    await applyRetention(new RetentionRepository(sequelize), [outboxRetention(7, { keep: "payload ? 'analytics'" })], {
      now: NOW,
      batchSize: 10,
    });
    expect(await outboxLabels()).toEqual(['fact']);
  });

  it('deletes parked events replayed longer ago than the retention, never one still parked', async () => {
    await freshDatabase();
    await parkedRow('replayed-old', daysAgo(60), daysAgo(31));
    await parkedRow('replayed-young', daysAgo(60), daysAgo(29));
    await parkedRow('never-replayed', daysAgo(400), null);
    const deleted = await applyRetention(new RetentionRepository(sequelize), [parkedEventRetention(30)], {
      now: NOW,
      batchSize: 10,
    });
    expect(deleted).toEqual({ parked_events: 1 });
    expect(await parkedLabels()).toEqual(['never-replayed', 'replayed-young']);
  });

  it('finds the old rows through their indexes, not by reading the tables', async () => {
    await freshDatabase();
    const plan = async (table: string, expired: string) => {
      const [rows] = await sequelize.transaction(async (transaction) => {
        await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
        return sequelize.query(
          `EXPLAIN SELECT ctid FROM ${table} WHERE ${expired.replace('$1', `'${NOW.toISOString()}'`)}`,
          {
            transaction,
          },
        );
      });
      return (rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    };
    expect(await plan('outbox_events', outboxRetention(7).expired)).toMatch(/outbox_events_published/);
    expect(await plan('parked_events', parkedEventRetention(30).expired)).toMatch(/parked_events_replayed/);
  });

  it('runs as a polling loop with the clock it is given', async () => {
    await freshDatabase();
    await outboxRow('old', daysAgo(9), daysAgo(8));
    await outboxRow('young', daysAgo(1), daysAgo(1));
    const clock: Clock = { now: () => NOW };
    const loop = startRetention({
      sequelize,
      rules: [outboxRetention(7)],
      config: {
        RETENTION_OUTBOX_DAYS: 7,
        RETENTION_DELIVERY_DAYS: 30,
        RETENTION_PARKED_EVENT_DAYS: 30,
        RETENTION_BATCH_SIZE: 1000,
        RETENTION_INTERVAL_MS: 3_600_000,
      },
      clock,
      logger: createLogger('retention-test', 'silent'),
    });
    try {
      await loop.runNow();
    } finally {
      await loop.stop();
    }
    expect(await outboxLabels()).toEqual(['young']);
  });
});
