import { openServiceStorage, grpcTransport, startGrpcServer, systemClock, type Logger } from '@billing/platform';
import { identityV1 } from '@billing/proto';
import type { IdentityConfig } from './config';
import { identityMigrations } from './db/migrations';
import { identityModels } from './db/models';
import { ApiKeyRepository } from './db/repositories/api-key.repository';
import { MerchantRepository } from './db/repositories/merchant.repository';
import { ProjectRepository } from './db/repositories/project.repository';
import { PasswordHasher } from './domain/password';
import { identityHandlers } from './handlers/identity.handlers';
import type { IdentityDeps } from './identity-deps';

export interface RunningIdentity {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, events, use-case dependencies, gRPC server. */
export async function startIdentity(config: IdentityConfig, logger: Logger): Promise<RunningIdentity> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const storage = await openServiceStorage({
    service: 'identity',
    config,
    models: identityModels,
    migrations: identityMigrations,
    logger,
  });

  const deps: IdentityDeps = {
    sequelize: storage.sequelize,
    merchants: new MerchantRepository(),
    projects: new ProjectRepository(),
    apiKeys: new ApiKeyRepository(),
    clock: systemClock,
    passwords: new PasswordHasher(config.PASSWORD_HASH_QUEUE_LENGTH, config.PASSWORD_SCRYPT_COST),
    jwt: { secret: config.JWT_SECRET, ttlSeconds: config.JWT_TTL_SECONDS },
  };
  const grpc = await startGrpcServer({
    transport,
    port: config.IDENTITY_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
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
      await storage.close();
    },
  };
}
