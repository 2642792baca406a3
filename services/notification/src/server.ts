import { lookup } from 'node:dns/promises';
import {
  connectNats,
  createPromiseClient,
  PortalLinks,
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
  databaseOptionsFrom,
  eventStreamSettings,
  parkedEventRetention,
  startRetention,
} from '@billing/platform';
import { billingV1, notificationV1 } from '@billing/proto';
import type { NotificationConfig } from './config';
import { notificationMigrations } from './db/migrations';
import { DeliveryAttemptModel, DeliveryModel } from './db/models/delivery.model';
import { CustomerEmailModel, EmailSettingsModel } from './db/models/customer-email.model';
import { WebhookModel } from './db/models/webhook.model';
import { CustomerEmailRepository } from './db/repositories/customer-email.repository';
import { EmailSettingsRepository } from './db/repositories/email-settings.repository';
import {
  DeliveryRepository,
  finishedDeliveryRetention,
  type AttemptRecord,
} from './db/repositories/delivery.repository';
import { WebhookRepository } from './db/repositories/webhook.repository';
import { DeliveryWorker } from './workers/delivery-worker';
import { BillingEmailFacts } from './emails/email-facts';
import { SmtpMailer } from './emails/smtp-mailer';
import { WebhookHttp } from './delivery/webhook-http';
import { SecretBox } from './domain/webhook-secret';
import { notificationHandlers } from './handlers/notification.handlers';
import { fanOutEvents } from './usecases/deliveries/fan-out-events.usecase';
import { queueCustomerEmails } from './usecases/emails/queue-customer-emails.usecase';
import { sendDueEmails } from './usecases/emails/send-due-emails.usecase';
import type { NotificationDeps } from './notification-deps';

/** The durable JetStream consumer shared by notification's replicas. */
const EVENT_CONSUMER = 'notification';

/** How long a stopping process waits for receivers before it cuts their attempts off. */
const DELIVERY_DRAIN_MS = 5_000;

/** Waits for `work`, or `ms` at most. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export interface RunningNotification {
  port: number;
  stop(): Promise<void>;
}

/**
 * A claimed email's lease: past the longest exchange nodemailer can have with the SMTP server (a
 * connection, a greeting and at most ten replies, STARTTLS and AUTH included, each wait bounded
 * by EMAIL_TIMEOUT_MS) and a billing read, so no other process sends an email while its sender
 * may still be talking to the server (docs/decisions.md, "Customer emails").
 */
const EMAIL_EXCHANGE_WAITS = 12;
const emailLeaseMs = (config: NotificationConfig) =>
  EMAIL_EXCHANGE_WAITS * config.EMAIL_TIMEOUT_MS + config.GRPC_DEADLINE_MS + 5_000;

/**
 * Wiring: database, secret box, DNS, webhook HTTP, billing client, SMTP, gRPC server, event
 * consumer, delivery worker and email loop.
 */
export async function startNotification(config: NotificationConfig, logger: Logger): Promise<RunningNotification> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'notification'),
    models: [WebhookModel, DeliveryModel, DeliveryAttemptModel, CustomerEmailModel, EmailSettingsModel],
    migrations: notificationMigrations,
    logger,
  });
  // Set once the worker exists; a test send or a retry wakes it.
  let wakeWorkers = () => {};
  let wakeEmails = () => {};
  const billing = createPromiseClient(
    billingV1.BillingServiceClient,
    config.BILLING_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const mailer = config.SMTP_URL
    ? new SmtpMailer(config.SMTP_URL, config.EMAIL_FROM_ADDRESS, config.EMAIL_TIMEOUT_MS)
    : null;
  if (!mailer) logger.warn('SMTP_URL is not set: customer emails are written and stay QUEUED until it is');
  if (!config.PORTAL_LINKS_KEY) {
    logger.warn('PORTAL_LINKS_KEY is not set: invoice.payment_failed emails stay QUEUED until it is');
  }
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
    urlPolicy: { allowInsecure: config.ALLOW_INSECURE_WEBHOOKS, ports: config.WEBHOOK_PORTS },
    resolveHost: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
    clock: systemClock,
    wakeWorkers: () => wakeWorkers(),
    emails: new CustomerEmailRepository(sequelize),
    emailSettings: new EmailSettingsRepository(),
    emailFacts: new BillingEmailFacts(
      billing,
      config.PORTAL_LINKS_KEY ? new PortalLinks(config.PORTAL_LINKS_KEY) : null,
      config.PUBLIC_URL,
    ),
    mailer,
    email: { retryDelaysMs: config.EMAIL_RETRY_DELAYS_MS, leaseMs: emailLeaseMs(config) },
    wakeEmails: () => wakeEmails(),
    ...(config.NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT
      ? {
          afterEmailSent: () => {
            logger.warn(
              'NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT: killing notification after the SMTP server took an email',
            );
            process.kill(process.pid, 'SIGKILL');
          },
        }
      : {}),
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
  // Customer emails: a loop of their own, so an SMTP outage never holds a webhook and a failing
  // receiver never holds an email (docs/decisions.md, "Customer emails").
  const emailLoop = startPollingLoop('customer-emails', config.EMAIL_POLL_MS, () => sendDueEmails(deps), logger);
  wakeEmails = () => void emailLoop.runNow();
  // Finished deliveries and replayed parked events past their retention (docs/deployment.md, "Retention").
  const retention = startRetention({
    sequelize,
    rules: [
      finishedDeliveryRetention(config.RETENTION_DELIVERY_DAYS),
      parkedEventRetention(config.RETENTION_PARKED_EVENT_DAYS),
    ],
    config,
    clock: systemClock,
    logger,
  });
  const nats = await connectNats(config.NATS_URL, 'notification');
  const consumer = new EventConsumer({
    nats,
    stream: eventStreamSettings(config),
    durableName: EVENT_CONSUMER,
    logger,
    parked: new ParkedEvents(sequelize),
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    redeliveryDelayMs: config.EVENT_REDELIVERY_DELAY_MS,
    now: () => systemClock.now(),
    // The emails first: one statement, and it sends nothing; the deliveries' first attempts
    // start from the fan-out. The batch is acked once both are committed.
    handle: async (events, traces) => {
      await queueCustomerEmails(deps, events);
      return fanOutEvents(deps, events, traces, deliveries);
    },
  });
  await consumer.start();
  registerConsumerLagMetrics({ nats, stream: config.EVENTS_STREAM, durableNames: [EVENT_CONSUMER], logger });
  registerSchedulerBacklog(logger, async () => {
    const due = await deliveryRows.countDue(deps.clock.now());
    return {
      webhook_deliveries: due.firstAttempts,
      webhook_retries: due.retries,
      customer_emails: await deps.emails.countDue(deps.clock.now()),
    };
  });
  logger.info({ grpc_port: grpc.port }, 'notification listening');
  return {
    port: grpc.port,
    async stop() {
      await consumer.stop();
      await worker.stop();
      await retention.stop();
      // Side by side, within the 10 s a stop has (docs/deployment.md, "Stopping"). An email pass
      // still waiting on the SMTP server after the grace keeps its leases: those emails go again
      // once they run out, as after a crash (docs/decisions.md, "Customer emails").
      await Promise.all([
        grpc.shutdown(),
        deliveries.drain(DELIVERY_DRAIN_MS),
        settledWithin(emailLoop.stop(), DELIVERY_DRAIN_MS),
      ]);
      await nats.drain();
      await http.close();
      mailer?.close();
      billing.close();
      await sequelize.close();
    },
  };
}
