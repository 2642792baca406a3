import { randomUUID } from 'node:crypto';
import { createLogger, openDatabase, ROOT_CONTEXT, systemClock, type EventEnvelope } from '@billing/platform';
import { dropDatabases, listenLocally, TEST_DATABASE_URL, uniqueRunId, type LocalEndpoint } from '@billing/testing';
import { DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '../src/config';
import { notificationMigrations } from '../src/db/migrations';
import { DeliveryAttemptModel, DeliveryModel } from '../src/db/models/delivery.model';
import { WebhookModel } from '../src/db/models/webhook.model';
import { DeliveryRepository } from '../src/db/repositories/delivery.repository';
import { WebhookRepository } from '../src/db/repositories/webhook.repository';
import { WebhookHttp } from '../src/delivery/webhook-http';
import { SecretBox } from '../src/domain/webhook-secret';
import type { AttemptTracker } from '../src/delivery/delivery-attempts';
import { fanOutEvents } from '../src/usecases/deliveries/fan-out-events.usecase';
import type { WebhookDeps } from '../src/notification-deps';

const TIMEOUT_MS = 2_000;
/** The attempt timeout and the lease margin of delivery/delivery-attempts.ts. */
const LEASE_MS = TIMEOUT_MS + 5_000;

/** The attempts a process takes, with room for `room` more. */
function tracker(room: number): AttemptTracker & { attempts: Promise<unknown>[] } {
  const attempts: Promise<unknown>[] = [];
  return { attempts, room: () => room - attempts.length, track: (attempt) => void attempts.push(attempt) };
}

describe('fanOutEvents: deliveries start from the consumer when its process has room', () => {
  const runId = uniqueRunId('fanout');
  let sequelize: Awaited<ReturnType<typeof openDatabase>>;
  let receiver: LocalEndpoint;
  const received: { id: string; signature: string | undefined }[] = [];
  /** The receiver answers once this is resolved, so a test can look at deliveries mid-attempt. */
  let answer: Promise<void> = Promise.resolve();
  let deps: WebhookDeps;
  let wakes = 0;
  const projectId = randomUUID();

  beforeAll(async () => {
    sequelize = await openDatabase({
      url: TEST_DATABASE_URL,
      database: `${runId}_notification`,
      models: [WebhookModel, DeliveryModel, DeliveryAttemptModel],
      migrations: notificationMigrations,
      logger: createLogger('fan-out-test', 'silent'),
    });
    receiver = await listenLocally((req, body, res) => {
      const { id } = JSON.parse(body.toString('utf8')) as { id: string };
      received.push({ id, signature: req.headers['webhook-signature'] as string | undefined });
      void answer.then(() => res.writeHead(200).end());
    });
    const secrets = new SecretBox(DEVELOPMENT_WEBHOOK_SECRETS_KEY);
    const deliveries = new DeliveryRepository(sequelize);
    deps = {
      webhooks: new WebhookRepository(),
      deliveries,
      recordAttempt: async (record) => void (await deliveries.recordAttempts([record])),
      http: new WebhookHttp({ timeoutMs: TIMEOUT_MS, allowInsecure: true }),
      delivery: { retryDelaysMs: [1000], timeoutMs: TIMEOUT_MS },
      secrets,
      urlPolicy: { allowInsecure: true, ports: [443] },
      resolveHost: async () => ['127.0.0.1'],
      clock: systemClock,
      wakeWorkers: () => void wakes++,
      logger: createLogger('fan-out-test', 'silent'),
    };
    await deps.webhooks.create(
      { merchantId: randomUUID(), projectId, livemode: false },
      {
        id: randomUUID(),
        url: `${receiver.url}/hooks`,
        events: ['invoice.paid'],
        description: null,
        secretSealed: secrets.seal('whsec_test'),
        createdAt: new Date(),
      },
    );
  });
  afterAll(async () => {
    await deps?.http.close();
    await receiver?.close();
    await sequelize?.close();
    await dropDatabases(runId);
  });
  beforeEach(() => {
    wakes = 0;
  });

  const events = (count: number, event = 'invoice.paid'): EventEnvelope[] =>
    Array.from({ length: count }, () => ({
      id: randomUUID(),
      event,
      data: { amount: 50 },
      created_at: new Date().toISOString(),
      project_id: projectId,
      livemode: false,
    }));
  /** The consumer's call for one batch of events, each in a trace of its own. */
  const fanOut = (batch: EventEnvelope[], attempts: AttemptTracker) =>
    fanOutEvents(
      deps,
      batch,
      batch.map(() => ROOT_CONTEXT),
      attempts,
    );
  const rowsOf = (envelopes: EventEnvelope[]) =>
    DeliveryModel.findAll({ where: { eventId: envelopes.map((e) => e.id) }, raw: true });

  it('with room: writes each delivery claimed, starts its attempt at once and wakes no worker', async () => {
    let release = () => {};
    answer = new Promise<void>((resolve) => (release = resolve));
    const batch = events(3);
    const attempts = tracker(10);
    expect(await fanOut(batch, attempts)).toBe(3);
    expect(attempts.attempts).toHaveLength(3);
    expect(wakes).toBe(0);
    // The POSTs are out while the rows are held by the claim lease, so a worker's pass skips them.
    const deadline = Date.now() + 5_000;
    while (received.filter((r) => batch.some((e) => e.id === r.id)).length < 3) {
      if (Date.now() > deadline) throw new Error('the attempts did not reach the receiver');
      await new Promise((r) => setTimeout(r, 10));
    }
    const held = await rowsOf(batch);
    expect(held.map((r) => [r.status, r.attempts, r.leaseUntil!.getTime() - r.createdAt.getTime()])).toEqual(
      batch.map(() => ['PENDING', 0, LEASE_MS]),
    );
    expect(await deps.deliveries.claimDue(new Date(), 100, 100, LEASE_MS)).toEqual([]);
    release();
    await Promise.all(attempts.attempts);
    const rows = await rowsOf(batch);
    expect(rows.map((r) => [r.status, r.attempts, r.leaseUntil])).toEqual(batch.map(() => ['SUCCEEDED', 1, null]));
    const got = received.filter((r) => batch.some((e) => e.id === r.id));
    expect(got).toHaveLength(3);
    expect(got.every((r) => r.signature?.startsWith('v1,'))).toBe(true);
  });

  it('a delivery written claimed is due for any worker once its lease runs out (its process died)', async () => {
    const [event] = events(1);
    const now = new Date();
    const [created] = await deps.deliveries.createForEvents(
      [
        {
          id: event.id,
          event: event.event,
          projectId,
          livemode: false,
          body: JSON.stringify(event),
          createdAt: now,
          traceHeaders: {},
        },
      ],
      now,
      LEASE_MS,
    );
    expect(created.attempt).toBe(1);
    expect(await deps.deliveries.claimDue(new Date(now.getTime() + LEASE_MS - 1), 100, 100, LEASE_MS)).toEqual([]);
    const claimed = await deps.deliveries.claimDue(new Date(now.getTime() + LEASE_MS), 100, 100, LEASE_MS);
    expect(claimed.map((d) => [d.id, d.attempt])).toEqual([[created.id, 1]]);
  });

  it('without room: writes them due and unclaimed, starts nothing and wakes the workers', async () => {
    const batch = events(3);
    const attempts = tracker(2);
    expect(await fanOut(batch, attempts)).toBe(3);
    expect(attempts.attempts).toHaveLength(0);
    expect(wakes).toBe(1);
    const rows = await rowsOf(batch);
    expect(rows.map((r) => [r.status, r.leaseUntil])).toEqual(batch.map(() => ['PENDING', null]));
    const claimed = await deps.deliveries.claimDue(new Date(), 100, 100, LEASE_MS);
    expect(claimed.map((d) => d.id).sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it('an event seen before, or one no webhook asked for, creates and starts nothing', async () => {
    const batch = events(2);
    await fanOut(batch, tracker(10));
    const again = tracker(10);
    const unwanted = events(1, 'customer.created');
    const all = [...batch, ...unwanted];
    expect(await fanOut(all, again)).toBe(0);
    expect(again.attempts).toHaveLength(0);
    expect(wakes).toBe(0);
    expect(await rowsOf(unwanted)).toEqual([]);
  });
});
