import {
  connectNats,
  databaseUrl,
  EventConsumer,
  grpcTransport,
  openDatabase,
  ParkedEvents,
  ProjectClocks,
  registerConsumerLagMetrics,
  startGrpcServer,
  systemClock,
  type Logger,
  databaseOptionsFrom,
  eventStreamSettings,
  parkedEventRetention,
  startRetention,
} from '@billing/platform';
import { analyticsV1 } from '@billing/proto';
import type { AnalyticsDeps } from './analytics-deps';
import type { AnalyticsConfig } from './config';
import { waitForConsumerLeadership, type ConsumerLeadership } from './db/consumer-leadership';
import { analyticsMigrations } from './db/migrations';
import { ReadModelRepository } from './db/repositories/read-model.repository';
import { analyticsHandlers } from './handlers/analytics.handlers';
import { applyAnalyticsEvents } from './usecases/events/apply-analytics-events.usecase';

/** The durable JetStream consumer shared by analytics' replicas. */
export const ANALYTICS_EVENT_CONSUMER = 'analytics';

export interface RunningAnalytics {
  port: number;
  stop(): Promise<void>;
}

/**
 * The read model's database, migrated, and the deps every entry point of analytics works with.
 * `direct`: on DATABASE_DIRECT_URL, for the rebuild, whose exclusive lock is a session's
 * (docs/deployment.md, "PostgreSQL connections").
 */
export async function openAnalytics(config: AnalyticsConfig, logger: Logger, options: { direct?: boolean } = {}) {
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'analytics', options),
    models: [],
    migrations: analyticsMigrations,
    logger,
  });
  const deps: AnalyticsDeps = {
    readModel: new ReadModelRepository(sequelize),
    clocks: new ProjectClocks(sequelize, systemClock),
    clock: systemClock,
    logger,
  };
  return { sequelize, deps };
}

/**
 * Wiring: the read model's database, the gRPC server (analytics.v1) and the durable consumer of
 * billing's events that keeps the read model (docs/decisions.md, "Analytics: a service of its own").
 */
export async function startAnalytics(config: AnalyticsConfig, logger: Logger): Promise<RunningAnalytics> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const { sequelize, deps } = await openAnalytics(config, logger);
  const grpc = await startGrpcServer({
    transport,
    port: config.ANALYTICS_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'analytics.v1.AnalyticsService',
        definition: analyticsV1.AnalyticsServiceService,
        implementation: analyticsHandlers(deps, logger),
      },
    ],
  });
  const nats = await connectNats(config.NATS_URL, 'analytics');
  const newConsumer = () =>
    new EventConsumer({
      nats,
      stream: eventStreamSettings(config),
      durableName: ANALYTICS_EVENT_CONSUMER,
      logger,
      parked: new ParkedEvents(sequelize),
      maxDeliveries: config.EVENT_MAX_DELIVERIES,
      redeliveryDelayMs: config.EVENT_REDELIVERY_DELAY_MS,
      now: () => systemClock.now(),
      handle: (events) => applyAnalyticsEvents(deps, events),
    });
  // One replica consumes at a time, so a subscription's facts apply in the stream's order
  // (db/consumer-leadership.ts); every replica answers queries.
  // A session's lock: on DATABASE_DIRECT_URL, never through a transaction-mode pooler.
  const direct = databaseOptionsFrom(config, 'analytics', { direct: true });
  const leaderDatabase = databaseUrl(direct.url, direct.database);
  let stopped = false;
  let leadership: ConsumerLeadership | undefined;
  let consumer: EventConsumer | undefined;
  let lagMetrics = false;
  const consumeWhileLeading = async () => {
    while (!stopped) {
      leadership = waitForConsumerLeadership(leaderDatabase);
      try {
        await leadership.acquired;
      } catch (err) {
        await leadership.release();
        if (stopped) return;
        logger.warn({ err }, 'the consumer lock could not be asked for; trying again');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (stopped) return;
      consumer = newConsumer();
      try {
        await consumer.start();
      } catch (err) {
        // Not consuming, so not holding the lock either: another replica may do better.
        logger.warn({ err }, 'the event consumer could not start; giving the consumer lock up and trying again');
        consumer = undefined;
        await leadership.release();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      logger.info('this replica consumes the event stream (it holds the consumer lock)');
      if (!lagMetrics) {
        lagMetrics = true;
        registerConsumerLagMetrics({
          nats,
          stream: config.EVENTS_STREAM,
          durableNames: [ANALYTICS_EVENT_CONSUMER],
          logger,
        });
      }
      await leadership.lost;
      if (stopped) return;
      logger.warn('the consumer lock was lost with its connection; consuming stops until it is held again');
      await consumer.stop();
      consumer = undefined;
    }
  };
  const leading = consumeWhileLeading().catch(async (err: unknown) => {
    logger.error({ err }, 'this replica stopped consuming; the consumer lock passes to another');
    await leadership?.release();
  });
  // Replayed parked events past their retention; processed_events is kept (docs/deployment.md, "Retention").
  const retention = startRetention({
    sequelize,
    rules: [parkedEventRetention(config.RETENTION_PARKED_EVENT_DAYS)],
    config,
    clock: systemClock,
    logger,
  });
  logger.info({ grpc_port: grpc.port }, 'analytics listening');
  return {
    port: grpc.port,
    async stop() {
      stopped = true;
      await retention.stop();
      // The batch in hand is finished and acked before the lock passes to another replica.
      await consumer?.stop();
      await leadership?.release();
      await leading;
      await grpc.shutdown();
      await nats.drain();
      await sequelize.close();
    },
  };
}
