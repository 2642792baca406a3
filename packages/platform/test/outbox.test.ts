import { Sequelize } from 'sequelize-typescript';
import { AckPolicy, DeliverPolicy, type NatsConnection } from 'nats';
import { register } from 'prom-client';
import { createLogger, outboxMigrations, OutboxRelay, recordEvent, type EventEnvelope } from '@billing/platform';
import { openEventTestbed, type EventTestbed } from '@billing/testing';

const logger = createLogger('outbox-test', 'silent');

describe('transactional outbox (real PostgreSQL + JetStream)', () => {
  let testbed: EventTestbed;
  let stream: string;
  let subjectPrefix: string;
  let sequelize: Sequelize;
  let nats: NatsConnection;

  beforeAll(async () => {
    testbed = await openEventTestbed('outbox', outboxMigrations);
    ({ stream, subjectPrefix, sequelize, nats } = testbed);
  });

  afterAll(() => testbed.close());

  async function readStream(filter: string): Promise<EventEnvelope[]> {
    const jsm = await nats.jetstreamManager();
    const info = await jsm.streams.info(stream);
    const consumer = `reader_${Math.random().toString(36).slice(2)}`;
    await jsm.consumers.add(stream, {
      durable_name: consumer,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      filter_subject: filter,
    });
    const messages = await nats.jetstream().consumers.get(stream, consumer);
    const out: EventEnvelope[] = [];
    if (info.state.messages > 0) {
      const batch = await messages.fetch({ max_messages: info.state.messages, expires: 2000 });
      for await (const m of batch) out.push(m.json<EventEnvelope>());
    }
    await jsm.consumers.delete(stream, consumer);
    return out;
  }

  it('never publishes an event written in a rolled-back transaction', async () => {
    const type = 'test.rolled_back';
    await expect(
      sequelize.transaction(async (transaction) => {
        await recordEvent(sequelize, transaction, { type, data: { n: 1 }, occurredAt: new Date() });
        throw new Error('business rule failed after the event was written');
      }),
    ).rejects.toThrow('business rule failed');

    const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix });
    expect(await relay.publishBatch()).toBe(0);
    const [rows] = await sequelize.query(`SELECT count(*)::int AS n FROM outbox_events WHERE event_type = '${type}'`);
    expect((rows as { n: number }[])[0].n).toBe(0);
    expect(await readStream(`${subjectPrefix}.${type}`)).toHaveLength(0);
  });

  it('publishes each committed event exactly once while two relays run', async () => {
    const type = 'test.committed';
    const total = 600;
    const ids: string[] = [];
    // Committed in many small transactions while both relays are already polling.
    const relayA = new OutboxRelay({ sequelize, nats, logger, subjectPrefix, batchSize: 50, pollIntervalMs: 5 });
    const relayB = new OutboxRelay({ sequelize, nats, logger, subjectPrefix, batchSize: 50, pollIntervalMs: 5 });
    relayA.start();
    relayB.start();
    for (let i = 0; i < total; i += 20) {
      await sequelize.transaction(async (transaction) => {
        for (let j = i; j < i + 20; j++) {
          const envelope = await recordEvent(sequelize, transaction, { type, data: { n: j }, occurredAt: new Date() });
          ids.push(envelope.id);
        }
      });
    }
    const deadline = Date.now() + 20_000;
    while (relayA.published + relayB.published < total && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all([relayA.stop(), relayB.stop()]);

    // No row was published by both relays, and both took part.
    expect(relayA.published + relayB.published).toBe(total);
    expect(relayA.published).toBeGreaterThan(0);
    expect(relayB.published).toBeGreaterThan(0);
    const [pending] = await sequelize.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE event_type = '${type}' AND published_at IS NULL`,
    );
    expect((pending as { n: number }[])[0].n).toBe(0);

    const received = await readStream(`${subjectPrefix}.${type}`);
    expect(received).toHaveLength(total);
    expect(new Set(received.map((e) => e.id))).toEqual(new Set(ids));
    expect(received.find((e) => e.id === ids[0])).toMatchObject({ event: type, data: { n: 0 } });
  });

  it('an idle relay looks less and less often, but finds a row a dead process left within 8 poll intervals', async () => {
    const type = 'test.idle';
    const envelope = await sequelize.transaction((transaction) =>
      recordEvent(sequelize, transaction, { type, data: { n: 1 }, occurredAt: new Date() }),
    );
    const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix, pollIntervalMs: 100 });
    const looks = jest.spyOn(relay, 'publishBatch');
    relay.start();
    try {
      await waitForPublished(relay, 1);
      // Idle for a second: how often it looks over time is what is tested, so there is no event
      // to await. At a fixed 100 ms it would look about ten times; backing off (100, 200, 400,
      // 800 ms) it looks four or five.
      looks.mockClear();
      await new Promise((r) => setTimeout(r, 1000));
      expect(looks.mock.calls.length).toBeLessThanOrEqual(6);
      // A row no commit of this process announced (as a crashed process leaves it): found at the
      // relay's next look, at most 800 ms away.
      await sequelize.query(`UPDATE outbox_events SET published_at = NULL WHERE id = '${envelope.id}'`);
      await waitForPublished(relay, 2);
    } finally {
      await relay.stop();
    }
  });

  /** Until `relay` has published `count` rows in all (at most 3 s: 8 poll intervals and room). */
  async function waitForPublished(relay: OutboxRelay, count: number): Promise<void> {
    const deadline = Date.now() + 3000;
    while (relay.published < count) {
      if (Date.now() > deadline) throw new Error(`the relay published ${relay.published} of ${count} rows`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a re-published row (crash before marking it sent) is stored once by JetStream', async () => {
    const type = 'test.republished';
    const envelope = await sequelize.transaction((transaction) =>
      recordEvent(sequelize, transaction, { type, data: { n: 1 }, occurredAt: new Date() }),
    );
    const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix });
    expect(await relay.publishBatch()).toBe(1);
    // Simulate the crash: the row looks unpublished again.
    await sequelize.query(`UPDATE outbox_events SET published_at = NULL WHERE id = '${envelope.id}'`);
    expect(await relay.publishBatch()).toBe(1);
    const received = await readStream(`${subjectPrefix}.${type}`);
    expect(received.map((e) => e.id)).toEqual([envelope.id]);
  });

  it('counts the events it published and the batches it failed to publish (docs/deployment.md, "Metrics")', async () => {
    const type = 'test.counted';
    const total = async (name: string) => (await register.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    const publishedBefore = await total('outbox_relay_published_events_total');
    const failedBefore = await total('outbox_relay_publish_failures_total');
    await sequelize.transaction((transaction) =>
      recordEvent(sequelize, transaction, { type, data: { n: 1 }, occurredAt: new Date() }),
    );
    // A relay whose subjects no stream takes: JetStream answers no publish, the batch rolls back.
    const stranded = new OutboxRelay({ sequelize, nats, logger, subjectPrefix: `nostream${Date.now()}` });
    stranded.start();
    const deadline = Date.now() + 10_000;
    while ((await total('outbox_relay_publish_failures_total')) === failedBefore) {
      if (Date.now() > deadline) throw new Error('no failed batch counted');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stranded.stop();
    expect(await total('outbox_relay_published_events_total')).toBe(publishedBefore);
    expect(stranded.published).toBe(0);

    const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix });
    expect(await relay.publishBatch()).toBe(1);
    expect(await total('outbox_relay_published_events_total')).toBe(publishedBefore + 1);
    expect((await readStream(`${subjectPrefix}.${type}`)).map((e) => e.event)).toEqual([type]);
  });
});
