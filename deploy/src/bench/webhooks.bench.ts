/**
 * Benchmark "webhooks": 10,000 events, produced as every service produces them (written to an
 * outbox in a transaction, published to JetStream by the platform's OutboxRelay), delivered by
 * the notification service to a local receiver. Prints deliveries/s and p50/p99 from each
 * event's commit to its receipt, beside a baseline of plain HTTP POSTs of the same bodies to the
 * same receiver at the same rate, in the same run. Run with `npm run bench -- webhooks`.
 *
 * Environment: BENCH_WEBHOOK_EVENTS [10000], BENCH_WEBHOOK_RATE [3000] (events per second).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import { Pool } from 'undici';
import {
  connectNats,
  createLogger,
  openDatabase,
  outboxMigrations,
  OutboxRelay,
  recordEvents,
  type NewEvent,
} from '@billing/platform';
import { freePort, startPlatform, TEST_DATABASE_URL } from '@billing/testing';
import { CpuMeter, cpuMsPerUnit, cpuPerUnitRows } from './cpu-meter';
import { percentile, registerBenchMerchant, round, runBenchmark, table } from './measure';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || 10_000);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE || 3_000);
/** Events per transaction: the rate is kept in 10 ms ticks. */
const TICK_MS = 10;
const PER_TICK = Math.max(1, Math.round((RATE * TICK_MS) / 1000));
/** Issue 16's goal for webhooks at 3,000 events/s. */
const GOAL_P99_MS = 100;

/** Receipt times by event id, and the receiver that takes them. */
async function startReceiver(): Promise<{ url: string; receivedAt: Map<string, number>; server: Server }> {
  const receivedAt = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      if (!receivedAt.has(id)) receivedAt.set(id, at);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, receivedAt, server };
}

const now = () => performance.timeOrigin + performance.now();

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
}

function figures(sentAt: Map<string, number>, receivedAt: Map<string, number>): Figures {
  const latencies = [...sentAt].map(([id, at]) => receivedAt.get(id)! - at).sort((a, b) => a - b);
  const first = Math.min(...sentAt.values());
  const last = Math.max(...[...sentAt.keys()].map((id) => receivedAt.get(id)!));
  return {
    perSecond: sentAt.size / ((last - first) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function waitForAll(ids: Iterable<string>, receivedAt: Map<string, number>, ms: number): Promise<void> {
  const wanted = [...ids];
  const deadline = Date.now() + ms;
  while (wanted.some((id) => !receivedAt.has(id))) {
    if (Date.now() > deadline) {
      throw new Error(`${wanted.filter((id) => !receivedAt.has(id)).length} of ${wanted.length} never arrived`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `send(k)` for k = 0..count-1 at RATE per second, PER_TICK at a time. */
async function paced(count: number, send: (batch: number[]) => Promise<void>): Promise<void> {
  const started = now();
  const inFlight: Promise<void>[] = [];
  for (let sent = 0, tick = 0; sent < count; tick++) {
    const due = started + tick * TICK_MS;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = Array.from({ length: Math.min(PER_TICK, count - sent) }, (_, i) => sent + i);
    sent += batch.length;
    inFlight.push(send(batch));
  }
  await Promise.all(inFlight);
}

async function main(): Promise<number> {
  process.stdout.write(`webhooks benchmark: ${EVENTS} events at ${RATE}/s to one local receiver\n`);
  const receiver = await startReceiver();
  const platform = await startPlatform({
    only: ['identity', 'notification', 'gateway'],
    env: { ALLOW_INSECURE_WEBHOOKS: 'true', LOG_LEVEL: 'warn', DELIVERY_POLL_MS: '250' },
  });
  const logger = createLogger('bench', 'warn');
  const producer = await openDatabase({
    url: TEST_DATABASE_URL,
    database: `${platform.databasePrefix}_bench_producer`,
    models: [],
    migrations: outboxMigrations,
    logger,
  });
  const nats = await connectNats(platform.env.NATS_URL, 'bench-producer');
  const relay = new OutboxRelay({ sequelize: producer, nats, logger, subjectPrefix: platform.eventsSubjectPrefix });
  try {
    const base = `${platform.gatewayUrl}/api/v1`;
    const merchant = await registerBenchMerchant(platform.gatewayUrl, platform.runId, 'hooks');
    const apiKey = merchant.testKey;
    const projectId = await projectOf(base, apiKey);
    const hook = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        authorization: `Bearer ${merchant.accessToken}`,
      },
      body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ['invoice.paid'] }),
    });
    if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}: ${await hook.text()}`);
    relay.start();

    // Warm-up (JIT, connections, the consumer's first fetch): 200 events, not measured.
    const produce = async (count: number): Promise<Map<string, number>> => {
      const committedAt = new Map<string, number>();
      await paced(count, async (batch) => {
        const events: NewEvent<Record<string, unknown>>[] = batch.map((k) => ({
          type: 'invoice.paid',
          data: { id: randomUUID(), amount: 50, currency: 'NGN', customer_email: `c${k}@example.com`, status: 'PAID' },
          projectId,
          livemode: false,
          occurredAt: new Date(),
        }));
        const envelopes = await producer.transaction((transaction) => recordEvents(producer, transaction, events));
        const at = now();
        for (const envelope of envelopes) committedAt.set(envelope.id, at);
      });
      return committedAt;
    };
    await waitForAll((await produce(200)).keys(), receiver.receivedAt, 60_000);

    const cpu = new CpuMeter(platform);
    const committedAt = await produce(EVENTS);
    await waitForAll(committedAt.keys(), receiver.receivedAt, 120_000);
    const cpuUse = cpu.stop();
    const platformFigures = figures(committedAt, receiver.receivedAt);
    const stages = await stagesOf(platform.database('notification'), committedAt, receiver.receivedAt);

    // Baseline: the same bodies POSTed straight to the same receiver, at the same rate.
    const ids = [...committedAt.keys()].map((id) => `baseline-${id}`);
    const bodies = ids.map((id) =>
      JSON.stringify({
        id,
        event: 'invoice.paid',
        data: { amount: 50 },
        created_at: new Date().toISOString(),
      }),
    );
    const client = new Pool(receiver.url, { connections: 64 });
    const postedAt = new Map<string, number>();
    await paced(bodies.length, async (batch) => {
      await Promise.all(
        batch.map(async (k) => {
          postedAt.set(ids[k], now());
          const res = await client.request({
            method: 'POST',
            path: '/hooks',
            body: bodies[k],
            headers: { 'content-type': 'application/json' },
          });
          await res.body.dump();
        }),
      );
    });
    await waitForAll(postedAt.keys(), receiver.receivedAt, 60_000);
    await client.close();
    const baselineFigures = figures(postedAt, receiver.receivedAt);

    process.stdout.write(
      `\n${table([
        ['what', 'events', 'per second', 'p50 ms', 'p99 ms'],
        [
          'notification: commit -> outbox relay -> JetStream -> signed POST',
          String(EVENTS),
          round(platformFigures.perSecond, 0).toString(),
          round(platformFigures.p50, 1).toString(),
          round(platformFigures.p99, 1).toString(),
        ],
        [
          'baseline: plain HTTP POST of the same bodies',
          String(EVENTS),
          round(baselineFigures.perSecond, 0).toString(),
          round(baselineFigures.p50, 1).toString(),
          round(baselineFigures.p99, 1).toString(),
        ],
      ])}\ngoal: p99 < ${GOAL_P99_MS} ms at ${RATE} events/s: ${platformFigures.p99 < GOAL_P99_MS ? 'met' : 'NOT met'}\n\n` +
        `where the time goes (p50 / p99 ms):\n${table([
          ['stage', 'p50 ms', 'p99 ms'],
          ...stages.map((s) => [s.stage, round(s.p50, 1).toString(), round(s.p99, 1).toString()]),
        ])}\n\n${table(cpuPerUnitRows([{ label: 'event', use: cpuUse, units: EVENTS }]))}\n\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        bench: 'webhooks',
        events: EVENTS,
        rate: RATE,
        node: process.version,
        deliveries_per_s: round(platformFigures.perSecond, 1),
        p50_ms: round(platformFigures.p50, 1),
        p99_ms: round(platformFigures.p99, 1),
        baseline_per_s: round(baselineFigures.perSecond, 1),
        baseline_p50_ms: round(baselineFigures.p50, 1),
        baseline_p99_ms: round(baselineFigures.p99, 1),
        goal_p99_ms: GOAL_P99_MS,
        stages: stages.map((s) => ({ stage: s.stage, p50_ms: round(s.p50, 1), p99_ms: round(s.p99, 1) })),
        cpu_ms_per_event: cpuMsPerUnit(cpuUse, EVENTS),
      })}\n`,
    );
    return 0;
  } finally {
    await relay.stop();
    await nats.close();
    await producer.close();
    await platform.stop();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  }
}

/**
 * The pipeline's stages from notification's own rows: commit -> the delivery row (outbox relay,
 * JetStream, the consumer and the fan-out insert), -> the first attempt's start (a worker's pass
 * and its claim), -> receipt (signing and the POST).
 */
async function stagesOf(
  database: string,
  committedAt: Map<string, number>,
  receivedAt: Map<string, number>,
): Promise<{ stage: string; p50: number; p99: number }[]> {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ event_id: string; created_at: Date; attempted_at: Date }>(
      `SELECT d.event_id, d.created_at, a.at AS attempted_at
         FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
        WHERE d.event_id = ANY($1::uuid[])`,
      [[...committedAt.keys()]],
    );
    const spans = { fanOut: [] as number[], claim: [] as number[], post: [] as number[] };
    for (const row of rows) {
      const committed = committedAt.get(row.event_id)!;
      spans.fanOut.push(row.created_at.getTime() - committed);
      spans.claim.push(row.attempted_at.getTime() - row.created_at.getTime());
      spans.post.push(receivedAt.get(row.event_id)! - row.attempted_at.getTime());
    }
    const of = (stage: string, values: number[]) => {
      const sorted = values.sort((a, b) => a - b);
      return { stage, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };
    return [
      of('commit -> delivery row (relay, JetStream, consumer, fan-out)', spans.fanOut),
      of('delivery row -> attempt start (worker pass, claim)', spans.claim),
      of('attempt start -> receipt (signature, POST)', spans.post),
    ];
  } finally {
    await client.end();
  }
}

/** The project of a test key. */
async function projectOf(base: string, apiKey: string): Promise<string> {
  const res = await fetch(`${base}/projects/current`, { headers: { 'x-api-key': apiKey } });
  const body = (await res.json()) as { id: string };
  return body.id;
}

runBenchmark('webhooks', main);
