import { lookup } from 'node:dns/promises';
import {
  connectNats,
  EventConsumer,
  openDatabase,
  ParkedEvents,
  registerConsumerLagMetrics,
  registerSchedulerBacklog,
  StatementBatches,
  grpcTransport,
  startGrpcServer,
  startPollingLoop,
  systemClock,
  type Logger,
} from '@billing/platform';
import { notificationV1 } from '@billing/proto';
import type { NotificationConfig } from './config';
import { notificationMigrations } from './db/migrations';
import { DeliveryAttemptModel, DeliveryModel } from './db/models/delivery.model';
import { WebhookModel } from './db/models/webhook.model';
import { DeliveryRepository, type AttemptRecord } from './db/repositories/delivery.repository';
import { WebhookRepository } from './db/repositories/webhook.repository';
import { DeliveryWorker } from './workers/delivery-worker';
import { WebhookHttp } from './delivery/webhook-http';
import { SecretBox } from './domain/webhook-secret';
import { notificationHandlers } from './handlers/notification.handlers';
import { fanOutEvents } from './usecases/deliveries/fan-out-events.usecase';
import type { NotificationDeps } from './notification-deps';

/** The durable JetStream consumer shared by notification's replicas. */
const EVENT_CONSUMER = 'notification';

/** How long a stopping process waits for receivers before it cuts their attempts off. */
const DELIVERY_DRAIN_MS = 5_000;

export interface RunningNotification {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, secret box, DNS, webhook HTTP, gRPC server, event consumer, delivery worker. */
export async function startNotification(config: NotificationConfig, logger: Logger): Promise<RunningNotification> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const sequelize = await openDatabase({
    url: config.DATABASE_URL,
    database: `${config.DATABASE_NAME_PREFIX}_notification`,
    models: [WebhookModel, DeliveryModel, DeliveryAttemptModel],
    migrations: notificationMigrations,
    logger,
  });
  // Set once the worker exists; a test send or a retry wakes it.
  let wakeWorkers = () => {};
  const http = new WebhookHttp({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowInsecure: config.ALLOW_INSECURE_WEBHOOKS });
  const deliveryRows = new DeliveryRepository(sequelize);
  const attempts = new StatementBatches({
    run: (records: AttemptRecord[]) => deliveryRows.recordAttempts(records),
    key: (record: AttemptRecord) => record.deliveryId,
    maxInFlight: 2,
    maxItems: 500,
  });
  const deps: NotificationDeps = {
    webhooks: new WebhookRepository(),
    deliveries: deliveryRows,
    recordAttempt: (record) => attempts.run(record),
    http,
    delivery: { retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS, timeoutMs: config.WEBHOOK_TIMEOUT_MS },
    secrets: new SecretBox(config.WEBHOOK_SECRETS_KEY),
    urlPolicy: { allowInsecure: config.ALLOW_INSECURE_WEBHOOKS },
    resolveHost: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
    clock: systemClock,
    wakeWorkers: () => wakeWorkers(),
    logger,
  };

  const grpc = await startGrpcServer({
    transport,
    port: config.NOTIFICATION_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'notification.v1.NotificationService',
        definition: notificationV1.NotificationServiceService,
        implementation: notificationHandlers(deps, logger),
      },
    ],
  });
  // Due deliveries (retries, and new ones the consumer had no room to start): every
  // DELIVERY_POLL_MS, and at once when woken.
  const deliveries = new DeliveryWorker(deps, logger);
  const worker = startPollingLoop('webhook-deliveries', config.DELIVERY_POLL_MS, () => deliveries.pass(), logger);
  wakeWorkers = () => void worker.runNow();
  const nats = await connectNats(config.NATS_URL, 'notification');
  const consumer = new EventConsumer({
    nats,
    stream: config.EVENTS_STREAM,
    subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
    durableName: EVENT_CONSUMER,
    logger,
    parked: new ParkedEvents(sequelize),
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    redeliveryDelayMs: config.EVENT_REDELIVERY_DELAY_MS,
    now: () => systemClock.now(),
    handle: (events, traces) => fanOutEvents(deps, events, traces, deliveries),
  });
  await consumer.start();
  registerConsumerLagMetrics({ nats, stream: config.EVENTS_STREAM, durableNames: [EVENT_CONSUMER], logger });
  registerSchedulerBacklog(logger, async () => {
    const due = await deliveryRows.countDue(deps.clock.now());
    return { webhook_deliveries: due.firstAttempts, webhook_retries: due.retries };
  });
  logger.info({ grpc_port: grpc.port }, 'notification listening');
  return {
    port: grpc.port,
    async stop() {
      await consumer.stop();
      await worker.stop();
      // Side by side, within the 10 s a stop has (docs/deployment.md, "Stopping").
      await Promise.all([grpc.shutdown(), deliveries.drain(DELIVERY_DRAIN_MS)]);
      await nats.drain();
      await http.close();
      await sequelize.close();
    },
  };
}
