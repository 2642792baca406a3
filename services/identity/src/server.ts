import {
  connectNats,
  ensureEventStream,
  openDatabase,
  OutboxRelay,
  startGrpcServer,
  systemClock,
  type Logger,
} from '@billing/platform';
import { identityV1 } from '@billing/proto';
import type { IdentityConfig } from './config';
import { identityMigrations } from './db/migrations';
import { identityModels } from './db/models';
import { ApiKeyRepository } from './db/repositories/api-key.repository';
import { MerchantRepository } from './db/repositories/merchant.repository';
import { ProjectRepository } from './db/repositories/project.repository';
import { identityHandlers } from './handlers/identity.handlers';
import type { IdentityDeps } from './usecases/identity-deps';

export interface RunningIdentity {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, events, use-case dependencies, gRPC server. */
export async function startIdentity(config: IdentityConfig, logger: Logger): Promise<RunningIdentity> {
  const sequelize = await openDatabase({
    url: config.DATABASE_URL,
    database: `${config.DATABASE_NAME_PREFIX}_identity`,
    models: identityModels,
    migrations: identityMigrations,
    logger,
  });
  const nats = await connectNats(config.NATS_URL, 'identity');
  await ensureEventStream(nats, config.EVENTS_STREAM, config.EVENTS_SUBJECT_PREFIX);
  const relay = new OutboxRelay({ sequelize, nats, logger, subjectPrefix: config.EVENTS_SUBJECT_PREFIX });
  relay.start();

  const deps: IdentityDeps = {
    sequelize,
    merchants: new MerchantRepository(),
    projects: new ProjectRepository(),
    apiKeys: new ApiKeyRepository(),
    clock: systemClock,
    jwt: { secret: config.JWT_SECRET, ttlSeconds: config.JWT_TTL_SECONDS },
  };
  const grpc = await startGrpcServer({
    port: config.IDENTITY_GRPC_PORT,
    services: [
      {
        name: 'identity.v1.IdentityService',
        definition: identityV1.IdentityServiceService,
        implementation: identityHandlers(deps, logger),
      },
    ],
  });
  logger.info({ port: grpc.port }, 'identity gRPC server listening');

  return {
    port: grpc.port,
    async stop() {
      await grpc.shutdown();
      await relay.stop();
      await nats.drain();
      await sequelize.close();
    },
  };
}
