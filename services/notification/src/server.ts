import { lookup } from 'node:dns/promises';
import {
  connectNats,
  EventConsumer,
  openDatabase,
  ParkedEvents,
  StatementBatches,
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
import { DeliveryWorker } from './delivery/delivery-worker';
import { WebhookHttp } from './delivery/webhook-http';
import { SecretBox } from './domain/webhook-secret';
import { notificationHandlers } from './handlers/notification.handlers';
import { fanOutEvents } from './usecases/fan-out-events.usecase';
import type { NotificationDeps } from './usecases/notification-deps';

export interface RunningNotification {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, secret box, DNS, webhook HTTP, gRPC server, event consumer, delivery worker. */
export async function startNotification(config: NotificationConfig, logger: Logger): Promise<RunningNotification> {
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
    port: config.NOTIFICATION_GRPC_PORT,
    services: [
      {
        name: 'notification.v1.NotificationService',
        definition: notificationV1.NotificationServiceService,
        implementation: notificationHandlers(deps, logger),
      },
    ],
  });
  // Due deliveries: every DELIVERY_POLL_MS, and at once when the consumer has made new ones.
  const deliveries = new DeliveryWorker(deps, logger);
  const worker = startPollingLoop('webhook-deliveries', config.DELIVERY_POLL_MS, () => deliveries.pass(), logger);
  wakeWorkers = () => void worker.runNow();
  const nats = await connectNats(config.NATS_URL, 'notification');
  const consumer = new EventConsumer({
    nats,
    stream: config.EVENTS_STREAM,
    subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
    durableName: 'notification',
    logger,
    parked: new ParkedEvents(sequelize),
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    redeliveryDelayMs: config.EVENT_REDELIVERY_DELAY_MS,
    now: () => systemClock.now(),
    handle: async (events, traces) => {
      if ((await fanOutEvents(deps, events, traces)) > 0) wakeWorkers();
    },
  });
  await consumer.start();
  logger.info({ grpc_port: grpc.port }, 'notification listening');
  return {
    port: grpc.port,
    async stop() {
      await consumer.stop();
      await grpc.shutdown();
      await worker.stop();
      await deliveries.drain();
      await nats.drain();
      await http.close();
      await sequelize.close();
    },
  };
}
