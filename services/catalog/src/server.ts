import { openServiceStorage, startGrpcServer, systemClock, type Logger } from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import type { CatalogConfig } from './config';
import { catalogMigrations } from './db/migrations';
import { PlanModel } from './db/models/plan.model';
import { PlanRepository } from './db/repositories/plan.repository';
import { catalogHandlers } from './handlers/catalog.handlers';
import type { CatalogDeps } from './usecases/catalog-deps';

export interface RunningCatalog {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, events, use-case dependencies, gRPC server. */
export async function startCatalog(config: CatalogConfig, logger: Logger): Promise<RunningCatalog> {
  const storage = await openServiceStorage({
    service: 'catalog',
    config,
    models: [PlanModel],
    migrations: catalogMigrations,
    logger,
  });

  const deps: CatalogDeps = { plans: new PlanRepository(), clock: systemClock };
  const grpc = await startGrpcServer({
    port: config.CATALOG_GRPC_PORT,
    services: [
      {
        name: 'catalog.v1.CatalogService',
        definition: catalogV1.CatalogServiceService,
        implementation: catalogHandlers(deps, logger),
      },
    ],
  });
  logger.info({ port: grpc.port }, 'catalog gRPC server listening');
  return {
    port: grpc.port,
    async stop() {
      await grpc.shutdown();
      await storage.close();
    },
  };
}
