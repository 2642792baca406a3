import {
  createPromiseClient,
  grpcTransport,
  listenHttp,
  openDatabase,
  PortalLinks,
  startGrpcServer,
  startPollingLoop,
  systemClock,
  type Logger,
  databaseOptionsFrom,
} from '@billing/platform';
import { billingV1, catalogV1, identityV1, portalV1 } from '@billing/proto';
import type { PortalConfig } from './config';
import { portalMigrations } from './db/migrations';
import { PortalConfigurationModel } from './db/models/portal-configuration.model';
import { PortalSessionModel } from './db/models/portal-session.model';
import { PortalConfigurationRepository } from './db/repositories/portal-configuration.repository';
import { PortalSessionRepository } from './db/repositories/portal-session.repository';
import { portalHandlers } from './handlers/portal.handlers';
import { createPortalPagesApp } from './http/portal-pages';
import type { PortalDeps } from './portal-deps';
import { purgeEndedSessions } from './usecases/sessions/purge-ended-sessions.usecase';

export interface RunningPortal {
  port: number;
  stop(): Promise<void>;
}

/**
 * Wiring: the portal's database (configurations and sessions), clients of billing, catalog and
 * identity, the gRPC server (portal.v1) and the HTTP server of the portal pages. No NATS: every
 * change an action makes is billing's, with billing's events (docs/decisions.md, "The customer
 * portal: a service of its own").
 */
export async function startPortal(config: PortalConfig, logger: Logger): Promise<RunningPortal> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'portal'),
    models: [PortalConfigurationModel, PortalSessionModel],
    migrations: portalMigrations,
    logger,
  });
  const { GRPC_DEADLINE_MS: deadline } = config;
  const credentials = transport.channelCredentials;
  const billing = createPromiseClient(billingV1.BillingServiceClient, config.BILLING_GRPC_URL, deadline, credentials);
  const catalog = createPromiseClient(catalogV1.CatalogServiceClient, config.CATALOG_GRPC_URL, deadline, credentials);
  const identity = createPromiseClient(
    identityV1.IdentityServiceClient,
    config.IDENTITY_GRPC_URL,
    deadline,
    credentials,
  );
  const deps: PortalDeps = {
    configurations: new PortalConfigurationRepository(),
    sessions: new PortalSessionRepository(),
    billing,
    catalog,
    identity,
    cards: billing,
    links: new PortalLinks(config.PORTAL_LINKS_KEY),
    clock: systemClock,
    settings: {
      publicUrl: config.PUBLIC_URL,
      linkTtlSeconds: config.PORTAL_LINK_TTL_SECONDS,
      idleTtlSeconds: config.PORTAL_IDLE_TTL_SECONDS,
    },
    logger,
  };
  const grpc = await startGrpcServer({
    transport,
    port: config.PORTAL_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'portal.v1.PortalService',
        definition: portalV1.PortalServiceService,
        implementation: portalHandlers(deps, logger),
      },
    ],
  });
  const pages = await listenHttp(createPortalPagesApp(deps, logger), config.PORTAL_HTTP_PORT);
  // Any replica may purge: a batch is a DELETE of ids that can never be used again.
  const purge = startPollingLoop(
    'portal-session-purge',
    config.PORTAL_SESSION_PURGE_MS,
    () => purgeEndedSessions(deps),
    logger,
  );
  logger.info({ grpc_port: grpc.port, http_port: config.PORTAL_HTTP_PORT }, 'portal listening');
  return {
    port: grpc.port,
    async stop() {
      await Promise.all([grpc.shutdown(), pages.close()]);
      await purge.stop();
      billing.close();
      catalog.close();
      identity.close();
      await sequelize.close();
    },
  };
}
