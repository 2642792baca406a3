import { lookup } from 'node:dns/promises';
import { openDatabase, startGrpcServer, systemClock, type Logger } from '@billing/platform';
import { notificationV1 } from '@billing/proto';
import type { NotificationConfig } from './config';
import { notificationMigrations } from './db/migrations';
import { WebhookModel } from './db/models/webhook.model';
import { WebhookRepository } from './db/repositories/webhook.repository';
import { SecretBox } from './domain/webhook-secret';
import { notificationHandlers } from './handlers/notification.handlers';
import type { NotificationDeps } from './usecases/notification-deps';

export interface RunningNotification {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, secret box, DNS, gRPC server. */
export async function startNotification(config: NotificationConfig, logger: Logger): Promise<RunningNotification> {
  const sequelize = await openDatabase({
    url: config.DATABASE_URL,
    database: `${config.DATABASE_NAME_PREFIX}_notification`,
    models: [WebhookModel],
    migrations: notificationMigrations,
    logger,
  });
  const deps: NotificationDeps = {
    webhooks: new WebhookRepository(),
    secrets: new SecretBox(config.WEBHOOK_SECRETS_KEY),
    urlPolicy: { allowInsecure: config.ALLOW_INSECURE_WEBHOOKS },
    resolveHost: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
    clock: systemClock,
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
  logger.info({ grpc_port: grpc.port }, 'notification listening');
  return {
    port: grpc.port,
    async stop() {
      await grpc.shutdown();
      await sequelize.close();
    },
  };
}
