import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { register } from 'prom-client';
import { QueryTypes } from 'sequelize';
import { Sequelize } from 'sequelize-typescript';
import {
  createLogger,
  EventConsumer,
  parkedEventsMigration,
  ParkedEvents,
  type EventEnvelope,
} from '@billing/platform';
import { openEventTestbed, type EventTestbed } from '@billing/testing';

const logger = createLogger('poison-events-test', 'silent');
const MAX_DELIVERIES = 5;

/**
 * Poison events (real PostgreSQL + JetStream): the handler is a test double that always throws
 * for one event id. That event fails alone, is parked after MAX_DELIVERIES deliveries, and the
 * events of its batch and those published after it are handled.
 */
describe('event consumer: one bad event fails alone and is parked', () => {
  let testbed: EventTestbed;
  let runId: string;
  let stream: string;
  let subjectPrefix: string;
  let sequelize: Sequelize;
  let nats: NatsConnection;
  let parked: ParkedEvents;

  beforeAll(async () => {
    testbed = await openEventTestbed('poison', [parkedEventsMigration]);
    ({ runId, stream, subjectPrefix, sequelize, nats } = testbed);
    parked = new ParkedEvents(sequelize);
  });

  afterAll(() => testbed.close());

  const envelope = (n: number): EventEnvelope => ({
    id: randomUUID(),
    event: 'test.happened',
    data: { n },
    created_at: new Date().toISOString(),
    project_id: randomUUID(),
    livemode: false,
  });
  const publish = async (events: EventEnvelope[], prefix = subjectPrefix) => {
    const js = nats.jetstream();
    for (const e of events) await js.publish(`${prefix}.${e.event}`, JSON.stringify(e), { msgID: e.id });
  };

  /** The handler double: records every call; throws for the poison ids (a batch with one of them fails whole). */
  function handlerDouble(poison: Set<string>) {
    const batches: string[][] = [];
    const handled = new Set<string>();
    const attempts = new Map<string, number>();
    const handle = async (events: EventEnvelope[]) => {
      batches.push(events.map((e) => e.id));
      for (const e of events) attempts.set(e.id, (attempts.get(e.id) ?? 0) + 1);
      if (events.some((e) => poison.has(e.id))) throw new Error('handler cannot take this event');
      for (const e of events) handled.add(e.id);
    };
    return { batches, handled, attempts, handle };
  }

  const consumerFor = (
    durableName: string,
    handle: (events: EventEnvelope[]) => Promise<unknown>,
    where = { streamSettings: testbed.streamSettings },
    eventType?: string,
  ) =>
    new EventConsumer({
      nats,
      stream: where.streamSettings,
      durableName,
      eventType,
      logger,
      parked,
      maxDeliveries: MAX_DELIVERIES,
      redeliveryDelayMs: 100,
      now: () => new Date(),
      handle,
    });

  async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const parkedRows = (consumer: string) =>
    sequelize.query<{ event_id: string | null; subject: string; payload: string; error: string; deliveries: number }>(
      'SELECT event_id, subject, payload, error, deliveries FROM parked_events WHERE consumer = $1 ORDER BY id',
      { bind: [consumer], type: QueryTypes.SELECT },
    );

  it('parks an always-failing event after 5 deliveries; its batch and the events after it are handled', async () => {
    const durable = `poison_${runId}`;
    const batch = Array.from({ length: 20 }, (_, n) => envelope(n));
    const bad = batch[7];
    const double = handlerDouble(new Set([bad.id]));
    // Published before the consumer starts, so they arrive (and fail) as one batch.
    await publish(batch);
    const consumer = consumerFor(durable, double.handle);
    await consumer.start();
    try {
      const after = Array.from({ length: 10 }, (_, n) => envelope(100 + n));
      await publish(after);
      const good = [...batch, ...after].filter((e) => e !== bad).map((e) => e.id);
      await waitUntil('every good event handled', () => good.every((id) => double.handled.has(id)));
      await waitUntil('the bad event parked', async () => (await parkedRows(durable)).length > 0);

      // The bad event came in a batch with others, which failed because of it alone.
      const sharedBatch = double.batches.find((ids) => ids.includes(bad.id) && ids.length > 1);
      expect(sharedBatch?.length).toBeGreaterThan(1);
      expect(sharedBatch!.filter((id) => id !== bad.id).every((id) => double.handled.has(id))).toBe(true);
      // Each good event was acked once handled: tried at most twice (in its batch, then alone).
      expect(good.filter((id) => (double.attempts.get(id) ?? 0) > 2)).toEqual([]);
      expect(double.handled.has(bad.id)).toBe(false);

      const [row] = await parkedRows(durable);
      expect(row).toMatchObject({
        event_id: bad.id,
        subject: `${subjectPrefix}.test.happened`,
        deliveries: MAX_DELIVERIES,
        error: 'Error: handler cannot take this event',
      });
      expect(JSON.parse(row.payload)).toEqual(bad);
      // The bad event was tried on each of its deliveries (in its first batch, then alone), then
      // acked: it never comes back, and nothing stays pending.
      const triedBad = double.attempts.get(bad.id);
      expect(triedBad).toBeGreaterThanOrEqual(MAX_DELIVERIES);
      // Acked: the consumer holds nothing it could deliver again, so no further attempt can come.
      const jsm = await nats.jetstreamManager();
      const deadline = Date.now() + 10_000;
      let info = await jsm.consumers.info(stream, durable);
      while ((info.num_ack_pending > 0 || info.num_pending > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        info = await jsm.consumers.info(stream, durable);
      }
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_pending).toBe(0);
      expect(double.attempts.get(bad.id)).toBe(triedBad);
      expect(await parkedRows(durable)).toHaveLength(1);
    } finally {
      await consumer.stop();
    }
  });

  /** The value of the parked_events gauge of a consumer, as a scrape reads it. */
  const parkedGauge = async (consumer: string) =>
    (await register.getSingleMetric('parked_events')!.get()).values.find((v) => v.labels.consumer === consumer)?.value;

  it('parks a message that is not an event at once, and replays a parked event on request', async () => {
    const durable = `replay_${runId}`;
    const events = [envelope(1), envelope(2)];
    const poison = new Set([events[0].id]);
    const double = handlerDouble(poison);
    // A stream of its own: the first test's events stay out.
    const where = await testbed.addStream('2');
    const consumer = consumerFor(durable, double.handle, where);
    await consumer.start();
    try {
      await nats.jetstream().publish(`${where.subjectPrefix}.test.garbage`, 'not json at all', { msgID: randomUUID() });
      await publish(events, where.subjectPrefix);
      await waitUntil('both parked', async () => (await parkedRows(durable)).length === 2);
      const rows = await parkedRows(durable);
      expect(rows.find((r) => r.event_id === null)).toMatchObject({
        subject: `${where.subjectPrefix}.test.garbage`,
        payload: 'not json at all',
        deliveries: 1,
      });
      expect(double.handled.has(events[1].id)).toBe(true);
      // The consumer's parked_events gauge (docs/deployment.md, "Metrics") counts both.
      expect(await parkedGauge(durable)).toBe(2);

      // The handler is fixed; the operator replays the parked event (docs/events-and-test-mode.md).
      poison.clear();
      expect(await parked.replay(nats, { eventIds: [events[0].id], now: new Date() })).toBe(1);
      await waitUntil('the replayed event handled', () => double.handled.has(events[0].id));
      const replayed = await sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM parked_events WHERE event_id = $1 AND replayed_at IS NOT NULL',
        { bind: [events[0].id], type: QueryTypes.SELECT },
      );
      expect(replayed[0].n).toBe(1);
      // A second replay sends nothing: the row is marked replayed.
      expect(await parked.replay(nats, { eventIds: [events[0].id], now: new Date() })).toBe(0);
      // Only the message that is no event is left waiting.
      expect(await parkedGauge(durable)).toBe(1);
    } finally {
      await consumer.stop();
    }
  });

  it('hands a consumer of one event type only the events of that type', async () => {
    const where = await testbed.addStream('3');
    const wanted = { ...envelope(1), event: 'test.wanted' };
    const others = [envelope(2), { ...envelope(3), event: 'test.wanted_not' }];
    const double = handlerDouble(new Set());
    const consumer = consumerFor(`typed_${runId}`, double.handle, where, 'test.wanted');
    await consumer.start();
    try {
      await publish([...others, wanted, envelope(4)], where.subjectPrefix);
      await waitUntil('the wanted event handled', () => double.handled.has(wanted.id));
      // Published before and after it: had they been handed over, the same pull would have held them.
      await new Promise((r) => setTimeout(r, 300));
      expect(double.batches.flat()).toEqual([wanted.id]);
    } finally {
      await consumer.stop();
    }
  });
});
