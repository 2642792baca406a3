import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerUnaryCall, ServiceDefinition, ServiceError, UntypedServiceImplementation } from '@grpc/grpc-js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Events, type NatsConnection } from 'nats';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { listenHttp, sendJson, type RunningHttpServer } from './http-server';
import type { Logger } from './logger';

/**
 * Prometheus metrics of one process (docs/deployment.md, "Metrics"). One registry per process
 * (prom-client's default one): every metric a process defines is on its `GET /metrics`.
 */

/** Latency buckets in seconds, from a cached lookup to a slow provider call. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Values that a scrape reads from the database or NATS must answer within this, so that a slow
 * dependency makes a scrape miss a value instead of hanging it (Prometheus times out at 10 s).
 */
const SCRAPE_READ_TIMEOUT_MS = 2000;

let defaultMetricsStarted = false;

/**
 * Serves `GET /metrics` on its own port (METRICS_PORT), apart from the API port so that it is
 * never exposed through the gateway's Ingress, and collects the Node.js process metrics.
 */
export async function startMetricsServer(service: string, port: number): Promise<RunningHttpServer> {
  if (!defaultMetricsStarted) {
    register.setDefaultLabels({ service });
    collectDefaultMetrics();
    defaultMetricsStarted = true;
  }
  return listenHttp((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' || (req.url !== '/metrics' && !req.url?.startsWith('/metrics?'))) {
      sendJson(res, 404, { detail: 'Not found: metrics are at GET /metrics' });
      return;
    }
    register.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': register.contentType });
        res.end(body);
      },
      (err: unknown) => sendJson(res, 500, { detail: `metrics could not be collected: ${String(err)}` }),
    );
  }, port);
}

/** A counter of this process, created once (a module may be loaded by several wirings in tests). */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames });
}

/** A latency histogram in seconds with the platform's buckets. */
export function latencyHistogram<L extends string>(name: string, help: string, labelNames: readonly L[]): Histogram<L> {
  return (
    (register.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS })
  );
}

/**
 * A gauge whose values are read when Prometheus scrapes (a backlog counted by a query): `read`
 * returns one value per label set. A read that fails or takes longer than SCRAPE_READ_TIMEOUT_MS
 * leaves the gauge empty for that scrape (a missing series, which alerts can detect), never a
 * stale value, and is logged.
 */
export function scrapeTimeGauge<L extends string>(options: {
  name: string;
  help: string;
  labelNames: readonly L[];
  logger: Logger;
  read(): Promise<{ labels: Partial<Record<L, string>>; value: number }[]>;
}): Gauge<L> {
  const { name, help, labelNames, logger, read } = options;
  const existing = register.getSingleMetric(name);
  if (existing) register.removeSingleMetric(name);
  return new Gauge({
    name,
    help,
    labelNames,
    async collect() {
      this.reset();
      let timer: NodeJS.Timeout | undefined;
      try {
        const values = await Promise.race([
          read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer in ${SCRAPE_READ_TIMEOUT_MS} ms`)),
              SCRAPE_READ_TIMEOUT_MS,
            );
          }),
        ]);
        for (const { labels, value } of values) this.set(labels, value);
      } catch (err) {
        logger.warn({ err, metric: name }, 'metrics: a scrape-time value could not be read');
      } finally {
        clearTimeout(timer);
      }
    },
  });
}

// --- gRPC server: rate, errors and latency per method ----------------------------------------

const grpcHandled = counter(
  'grpc_server_handled_total',
  'gRPC calls answered by this server, by service, method and status code',
  ['grpc_service', 'grpc_method', 'grpc_code'],
);
const grpcHandling = latencyHistogram(
  'grpc_server_handling_seconds',
  'Time from receiving a gRPC call to answering it, by service, method and status code',
  ['grpc_service', 'grpc_method', 'grpc_code'],
);

type UnaryCallback = (error: Partial<ServiceError> | null, response?: unknown) => void;

/**
 * The implementation of a gRPC service with every unary method counted and timed, by the status
 * each call ends with (the one unaryService turned its error into). A wrapper of the handlers
 * that startGrpcServer registers, so every service is measured without code of its own.
 */
export function measuredGrpcService(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
): UntypedServiceImplementation {
  const measured: UntypedServiceImplementation = { ...implementation };
  for (const [method, handler] of Object.entries(implementation)) {
    const spec = definition[method];
    if (typeof handler !== 'function' || !spec || spec.requestStream || spec.responseStream) continue;
    // The path names the method as the proto does: /billing.v1.BillingService/AdvanceTestClock.
    const [, grpcService, grpcMethod] = spec.path.split('/');
    const unary = handler as (call: ServerUnaryCall<unknown, unknown>, callback: UnaryCallback) => void;
    measured[method] = (call: ServerUnaryCall<unknown, unknown>, callback: UnaryCallback) => {
      const end = grpcHandling.startTimer();
      unary(call, (error, response) => {
        const labels = {
          grpc_service: grpcService,
          grpc_method: grpcMethod,
          grpc_code: GrpcStatus[error ? (error.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK],
        };
        grpcHandled.inc(labels);
        end(labels);
        callback(error, response);
      });
    };
  }
  return measured;
}

// --- Scrape-time backlogs: outbox and JetStream consumers -----------------------------------

/**
 * The outbox's unsent events and the age of the oldest one (a relay that is stuck or behind):
 * each a query served by the partial index of unsent rows (outbox_events_pending_seq).
 */
export function registerOutboxMetrics(sequelize: Sequelize, logger: Logger): void {
  const pending = (select: string) => async () => {
    const [row] = await sequelize.query<{ value: number | null }>(
      `SELECT (${select})::float8 AS value FROM outbox_events WHERE published_at IS NULL`,
      { type: QueryTypes.SELECT },
    );
    return [{ labels: {}, value: row.value ?? 0 }];
  };
  scrapeTimeGauge({
    name: 'outbox_pending_events',
    help: 'Events committed to the outbox and not yet published to NATS',
    labelNames: [],
    logger,
    read: pending('count(*)'),
  });
  scrapeTimeGauge({
    name: 'outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest unpublished outbox event (0 when none is pending)',
    labelNames: [],
    logger,
    read: pending('EXTRACT(EPOCH FROM now() - min(created_at))'),
  });
}

/** Messages of a stream that a durable consumer has not yet been handed or not yet acked. */
export function registerConsumerLagMetrics(options: {
  nats: NatsConnection;
  stream: string;
  durableNames: string[];
  logger: Logger;
}): void {
  const { nats, stream, durableNames, logger } = options;
  const infos = async () => {
    const jsm = await nats.jetstreamManager();
    return Promise.all(durableNames.map((durable) => jsm.consumers.info(stream, durable)));
  };
  scrapeTimeGauge({
    name: 'jetstream_consumer_pending_messages',
    help: 'Messages of the stream not yet delivered to the durable consumer (num_pending)',
    labelNames: ['stream', 'consumer'],
    logger,
    async read() {
      return (await infos()).map((info) => ({ labels: { stream, consumer: info.name }, value: info.num_pending }));
    },
  });
  scrapeTimeGauge({
    name: 'jetstream_consumer_ack_pending_messages',
    help: 'Messages delivered to the durable consumer and not yet acknowledged (num_ack_pending)',
    labelNames: ['stream', 'consumer'],
    logger,
    async read() {
      return (await infos()).map((info) => ({ labels: { stream, consumer: info.name }, value: info.num_ack_pending }));
    },
  });
}

/**
 * Due work of a process's schedulers, counted at scrape time: `counts` returns, per scheduler,
 * how many items are due now and not yet done (a growing value means the scheduler falls behind).
 */
export function registerSchedulerBacklog(logger: Logger, counts: () => Promise<Record<string, number>>): void {
  scrapeTimeGauge({
    name: 'scheduler_due_items',
    help: 'Work items due now and not yet done, by scheduler',
    labelNames: ['scheduler'],
    logger,
    async read() {
      return Object.entries(await counts()).map(([scheduler, value]) => ({ labels: { scheduler }, value }));
    },
  });
}

// --- Parked events: a consumer's events that failed every delivery ---------------------------

/** What registerParkedEventsMetrics reads (ParkedEvents of parked-events.ts). */
export interface ParkedEventCounts {
  /** Parked events of one consumer not yet replayed. */
  waitingFor(consumer: string): Promise<number>;
}

/** The consumers of this process that park events, and where each parks them. */
const parkingConsumers = new Map<string, ParkedEventCounts>();

/**
 * Parked events not yet replayed, by consumer (each an event a handler gave up on, which nothing
 * sends again until an operator replays it): every event consumer registers itself, and its
 * series is there (0) before anything is parked.
 */
export function registerParkedEventsMetrics(parked: ParkedEventCounts, consumer: string, logger: Logger): void {
  parkingConsumers.set(consumer, parked);
  scrapeTimeGauge({
    name: 'parked_events',
    help: 'Events a consumer parked after its last delivery failed and nobody has replayed yet, by consumer',
    labelNames: ['consumer'],
    logger,
    read: () =>
      Promise.all(
        [...parkingConsumers].map(async ([name, counts]) => ({
          labels: { consumer: name },
          value: await counts.waitingFor(name),
        })),
      ),
  });
}

// --- Database connection pools: in use, idle, waiting ----------------------------------------

/** The counts sequelize-pool keeps of one pool (sequelize.connectionManager.pool). */
interface ConnectionPoolCounts {
  readonly size: number;
  readonly available: number;
  readonly using: number;
  readonly waiting: number;
  readonly maxSize: number;
}

/** The pools of this process's databases by database name, read when Prometheus scrapes. */
const databasePools = new Map<string, ConnectionPoolCounts>();

function poolGauge(name: string, help: string, read: (pool: ConnectionPoolCounts) => number): void {
  if (register.getSingleMetric(name)) return;
  new Gauge({
    name,
    help,
    labelNames: ['database'],
    collect() {
      this.reset();
      for (const [database, pool] of databasePools) this.set({ database }, read(pool));
    },
  });
}

/**
 * The connection pool of a database the process opened (openDatabase registers every one), read
 * from the pool's own counters when Prometheus scrapes: nothing is added to a query's path.
 * Requests waiting for a connection mean the pool (DATABASE_POOL_MAX) or the server is too small.
 */
export function registerDatabasePoolMetrics(sequelize: Sequelize, database: string): void {
  const pool = (sequelize.connectionManager as unknown as { pool?: ConnectionPoolCounts }).pool;
  // A replicated (read/write) setup has two pools and no counters of its own: not used here.
  if (!pool || typeof pool.waiting !== 'number') return;
  databasePools.set(database, pool);
  poolGauge('db_pool_connections_in_use', 'Connections of the pool lent to a query or transaction', (p) => p.using);
  poolGauge('db_pool_connections_idle', 'Open connections of the pool that nothing uses', (p) => p.available);
  poolGauge('db_pool_connections_max', 'The most connections the pool opens', (p) => p.maxSize);
  poolGauge(
    'db_pool_pending_acquires',
    'Queries and transactions waiting for a connection of the pool (all are in use)',
    (p) => p.waiting,
  );
}

// --- NATS connection state -------------------------------------------------------------------

const natsConnected = new Map<string, number>();

/**
 * Whether each NATS connection of the process is up (1) or not (0), and how often it came back,
 * from the connection's status events (connectNats watches every connection).
 */
export function registerNatsConnectionMetrics(nc: NatsConnection, connection: string): void {
  if (!register.getSingleMetric('nats_client_connected')) {
    new Gauge({
      name: 'nats_client_connected',
      help: 'Whether the NATS connection is up (1) or lost or closed (0), by connection name',
      labelNames: ['connection'],
      collect() {
        this.reset();
        for (const [name, value] of natsConnected) this.set({ connection: name }, value);
      },
    });
  }
  const reconnects = counter(
    'nats_client_reconnects_total',
    'Times the NATS connection was lost and made again, by connection name',
    ['connection'],
  ).labels({ connection });
  reconnects.inc(0);
  natsConnected.set(connection, 1);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) natsConnected.set(connection, 0);
      else if (status.type === Events.Reconnect) {
        natsConnected.set(connection, 1);
        reconnects.inc();
      }
    }
  })();
  void nc.closed().then(() => natsConnected.set(connection, 0));
}
