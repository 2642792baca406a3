import type { ModelCtor, Sequelize } from 'sequelize-typescript';
import { databaseOptionsFrom, openDatabase, type DatabaseConnectionConfig, type Migration } from './db';
import { exitOnStartupFailure, runUntilSignalled } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { registerOutboxMetrics, startMetricsServer } from './metrics';
import type { NatsEnv } from './config';
import { connectNats, ensureEventStream, eventStreamSettings, type NatsConnection } from './nats';
import { OutboxRelay } from './outbox';
import { ParkedEvents } from './parked-events';
import { systemClock } from './clock';
import type { RetentionConfig } from './config';
import { outboxRetention, parkedEventRetention, startRetention, type RetentionRule } from './retention';

export interface ServiceStorageConfig extends DatabaseConnectionConfig, RetentionConfig, NatsEnv {}

/** A service's own database (migrated), its NATS connection and its running outbox relay. */
export interface ServiceStorage {
  sequelize: Sequelize;
  nats: NatsConnection;
  relay: OutboxRelay;
  close(): Promise<void>;
}

export async function openServiceStorage(options: {
  service: string;
  config: ServiceStorageConfig;
  models: ModelCtor[];
  migrations: Migration[];
  logger: Logger;
  /**
   * Retention of the outbox (docs/deployment.md, "Retention"): `outboxKeep` exempts rows that
   * are history; `parkedEvents` for a service that consumes events.
   */
  retention?: { outboxKeep?: string; parkedEvents?: boolean };
}): Promise<ServiceStorage> {
  const { config, logger } = options;
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, options.service),
    models: options.models,
    migrations: options.migrations,
    logger,
  });
  const nats = await connectNats(config.NATS_URL, options.service);
  await ensureEventStream(nats, eventStreamSettings(config), logger);
  const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix: config.EVENTS_SUBJECT_PREFIX });
  relay.start();
  registerOutboxMetrics(sequelize, logger);
  const rules: RetentionRule[] = [
    outboxRetention(config.RETENTION_OUTBOX_DAYS, { keep: options.retention?.outboxKeep }),
    ...(options.retention?.parkedEvents ? [parkedEventRetention(config.RETENTION_PARKED_EVENT_DAYS)] : []),
  ];
  const retention = startRetention({ sequelize, rules, config, clock: systemClock, logger });
  return {
    sequelize,
    nats,
    relay,
    async close() {
      await retention.stop();
      await relay.stop();
      await nats.drain();
      await sequelize.close();
    },
  };
}

/**
 * A process's main: config, logger, its metrics server, start, then run until SIGTERM/SIGINT. Call startTracing
 * before importing the service's modules and pass its handle here.
 */
export function runService<C extends { LOG_LEVEL: string; METRICS_PORT: number }>(
  service: string,
  tracing: { shutdown(): Promise<void> },
  loadConfig: () => C,
  start: (config: C, logger: Logger) => Promise<{ stop(): Promise<void> }>,
): void {
  const config = loadConfig();
  const logger = createLogger(service, config.LOG_LEVEL);
  const started = async () => {
    const metrics = await startMetricsServer(service, config.METRICS_PORT);
    logger.info({ metrics_port: metrics.port }, 'metrics at GET /metrics');
    return { metrics, running: await start(config, logger) };
  };
  started().then(({ metrics, running }) => {
    runUntilSignalled(logger, async () => {
      await running.stop();
      await metrics.close();
      await tracing.shutdown();
    });
  }, exitOnStartupFailure(logger));
}

/**
 * An operator's command (docs/events-and-test-mode.md, "Replay"): publishes the parked events of
 * the consuming `service` to their subjects again, once their cause is fixed, and marks them
 * replayed. With the service's environment: `node services/<service>/dist/replay-parked-events.js
 * <event id>... | --all`.
 */
export function runParkedEventsReplay(
  service: string,
  loadConfig: () => DatabaseConnectionConfig & Pick<ServiceStorageConfig, 'NATS_URL'> & { LOG_LEVEL: string },
  migrations: Migration[],
  args: string[] = process.argv.slice(2),
): void {
  const replay = async () => {
    const all = args.includes('--all');
    const eventIds = args.filter((a) => a !== '--all');
    if (all === eventIds.length > 0) {
      process.stderr.write('usage: replay-parked-events.js <event id>... | --all\n');
      process.exit(64);
    }
    const config = loadConfig();
    const logger = createLogger(`${service}-replay`, config.LOG_LEVEL);
    const sequelize = await openDatabase({
      ...databaseOptionsFrom(config, `${service}-replay`),
      database: databaseOptionsFrom(config, service).database,
      models: [],
      migrations,
      logger,
    });
    const nats = await connectNats(config.NATS_URL, `${service}-replay`);
    try {
      const count = await new ParkedEvents(sequelize).replay(nats, {
        eventIds: all ? undefined : eventIds,
        now: systemClock.now(),
      });
      process.stdout.write(`${count} parked event(s) published again\n`);
    } finally {
      await nats.drain();
      await sequelize.close();
    }
  };
  replay().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
