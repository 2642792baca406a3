import express, { type Express, type RequestHandler } from 'express';
import swaggerUi from 'swagger-ui-express';
import {
  connectNats,
  grpcTransport,
  listenHttp,
  openDatabase,
  startPollingLoop,
  systemClock,
  type Logger,
  databaseOptionsFrom,
} from '@billing/platform';
import { ApiKeyCache } from './auth/api-key-cache';
import { createAnalyticsClient, type AnalyticsClient } from './clients/analytics.client';
import { listenForKeyRevocations } from './auth/key-revocation-listener';
import { listenForPlanChanges } from './cache/plan-change-listener';
import { PlanReadCache } from './cache/plan-read-cache';
import { createBillingClient, type BillingClient } from './clients/billing.client';
import { createCatalogClient, type CatalogClient } from './clients/catalog.client';
import { createIdentityClient, type IdentityClient } from './clients/identity.client';
import { createNotificationClient, type NotificationClient } from './clients/notification.client';
import { createDocumentsClient, type DocumentsClient } from './clients/documents.client';
import { createPolicyClient, type PolicyClient } from './clients/policy.client';
import { createPortalClient, type PortalClient } from './clients/portal.client';
import type { GatewayConfig } from './config';
import { DashboardApi } from './dashboard/dashboard-api';
import { dashboardRouter } from './dashboard/dashboard.router';
import { DashboardSessions } from './dashboard/dashboard-sessions';
import { DashboardSessionRepository } from './db/dashboard-session.repository';
import { IdempotencyRepository } from './db/idempotency.repository';
import { gatewayMigrations } from './db/migrations';
import { readJsonBody } from './http/body';
import { API_PREFIX, mountRoutes, resolveRoutes, type AuthScheme } from './http/route';
import { apiKeyAuth, dualAuth, jwtAuth } from './middleware/auth';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { httpMetrics, markRoute } from './middleware/http-metrics';
import { idempotency, type IdempotencyDeps } from './middleware/idempotency';
import { RateLimits } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { buildOpenApiDocument } from './openapi/document';
import { providerWebhookForwarder } from './proxy/provider-webhook.proxy';
import { checkoutProxy, documentPagesProxy, portalPagesProxy } from './proxy/service-pages.proxy';
import { v1Resources } from './routes/v1';

export interface AppDeps {
  config: Pick<
    GatewayConfig,
    'PUBLIC_URL' | 'CATALOG_HTTP_URL' | 'DOCUMENTS_HTTP_URL' | 'PORTAL_HTTP_URL' | 'CHECK_RESPONSES'
  > &
    Partial<Pick<GatewayConfig, 'TRUSTED_PROXIES'>>;
  identity: IdentityClient;
  catalog: CatalogClient;
  billing: BillingClient;
  policy: PolicyClient;
  notification: NotificationClient;
  documents: DocumentsClient;
  portal: PortalClient;
  analytics: AnalyticsClient;
  apiKeyCache: ApiKeyCache;
  planCache: PlanReadCache;
  /** Idempotency-Key records (the gateway's database); absent, the header is ignored. */
  idempotency?: IdempotencyDeps;
  rateLimits: RateLimits;
  /** The merchant dashboard's sessions (the gateway's database); absent, /dashboard is not served. */
  dashboard?: { sessions: DashboardSessions };
  logger: Logger;
}

/** The HTTP surface but the provider webhook (see startGateway); no sockets, so tests can also drive it in-process. */
export function createApp(deps: AppDeps): Express {
  const { logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // req.ip is the client's address only behind a proxy named in TRUSTED_PROXIES (the per-address
  // limits of /auth/* and /portal/*, docs/rate-limits.md); otherwise the connection's.
  const trusted = deps.config.TRUSTED_PROXIES ?? [];
  app.set('trust proxy', trusted.length > 0 ? trusted : false);
  app.use(requestId(logger));
  app.use(httpMetrics());

  // Probes and process starters; deliberately independent of identity, so a slow identity does
  // not get healthy gateway replicas restarted.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const routes = resolveRoutes(v1Resources, deps);
  const document = buildOpenApiDocument(routes, deps.config.PUBLIC_URL);
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  // swagger-ui-express serves its assets from the swagger-ui-dist package: no CDN.
  // Operation ids shown: they are the names merchants meet in generated clients.
  app.use(
    '/docs',
    swaggerUi.serve,
    swaggerUi.setup(document, {
      customSiteTitle: 'Subscription Billing API',
      swaggerOptions: { displayOperationId: true },
    }),
  );

  // Before any body parser: the proxied bodies must reach catalog byte for byte.
  app.use(checkoutProxy(deps.config.CATALOG_HTTP_URL, logger));
  app.use(documentPagesProxy(deps.config.DOCUMENTS_HTTP_URL, logger));
  // The portal's pages are counted per address first: its links are capabilities worth guessing.
  app.use('/portal', deps.rateLimits.perPortalAddress());
  app.use(portalPagesProxy(deps.config.PORTAL_HTTP_URL, logger));

  // The merchant dashboard: its pages call the routes below in-process (dashboard/dashboard-api.ts).
  if (deps.dashboard) {
    app.use(
      '/dashboard',
      dashboardRouter({
        api: new DashboardApi(routes, deps.config.CHECK_RESPONSES),
        sessions: deps.dashboard.sessions,
        identity: deps.identity,
        rateLimits: deps.rateLimits,
        logger,
      }),
    );
  }

  // Idempotency-Key applies to authenticated POSTs (it is scoped to the caller's credentials).
  const afterAuth = deps.idempotency ? [idempotency(deps.idempotency)] : [];
  const authFor: Record<AuthScheme, RequestHandler[]> = {
    none: [],
    apiKey: [apiKeyAuth(deps), deps.rateLimits.perApiKey(), ...afterAuth],
    jwt: [jwtAuth(deps), ...afterAuth],
    dual: [dualAuth(deps), deps.rateLimits.perApiKey(), ...afterAuth],
  };
  const v1 = express.Router();
  v1.use(readJsonBody());
  v1.use('/auth', deps.rateLimits.perAuthAddress());
  // Named here too: a login refused by its limit never reaches the route's own handlers.
  v1.post('/auth/login', markRoute(`${API_PREFIX}/auth/login`), deps.rateLimits.loginFailuresPerEmail());
  mountRoutes(v1, routes, authFor, deps.config.CHECK_RESPONSES);
  app.use(API_PREFIX, v1);

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}

export interface RunningGateway {
  port: number;
  stop(): Promise<void>;
}

/** Expired Idempotency-Key records and ended dashboard sessions are deleted this often, in batches. */
const IDEMPOTENCY_PURGE_MS = 10 * 60 * 1000;
const IDEMPOTENCY_PURGE_BATCH = 10_000;

/** Wiring: the gateway's database, gRPC clients, the app, the HTTP server. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'gateway'),
    models: [],
    migrations: gatewayMigrations,
    logger,
  });
  const idempotencyStore = new IdempotencyRepository(sequelize);
  const dashboardSessions = new DashboardSessions(new DashboardSessionRepository(sequelize), systemClock, {
    idleSeconds: config.DASHBOARD_SESSION_IDLE_SECONDS,
    maxSeconds: config.DASHBOARD_SESSION_MAX_SECONDS,
    secureCookies: config.PUBLIC_URL.startsWith('https:'),
  });
  const purge = startPollingLoop(
    'idempotency-purge',
    IDEMPOTENCY_PURGE_MS,
    async () => {
      while ((await idempotencyStore.purgeExpired(systemClock.now(), IDEMPOTENCY_PURGE_BATCH)) > 0) {
        // Until no expired record is left.
      }
      while ((await dashboardSessions.purgeEnded(IDEMPOTENCY_PURGE_BATCH)) > 0) {
        // Until no ended dashboard session is left.
      }
    },
    logger,
  );
  const identity = createIdentityClient(
    config.IDENTITY_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const catalog = createCatalogClient(config.CATALOG_GRPC_URL, config.GRPC_DEADLINE_MS, transport.channelCredentials);
  const billing = createBillingClient(config.BILLING_GRPC_URL, config.GRPC_DEADLINE_MS, transport.channelCredentials);
  const policy = createPolicyClient(config.POLICY_GRPC_URL, config.GRPC_DEADLINE_MS, transport.channelCredentials);
  const notification = createNotificationClient(
    config.NOTIFICATION_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const documents = createDocumentsClient(
    config.DOCUMENTS_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const portal = createPortalClient(config.PORTAL_GRPC_URL, config.GRPC_DEADLINE_MS, transport.channelCredentials);
  const analytics = createAnalyticsClient(
    config.ANALYTICS_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const apiKeyCache = new ApiKeyCache(config.API_KEY_CACHE_TTL_MS);
  // Not used until listenForPlanChanges has confirmed its subscription.
  const planCache = new PlanReadCache(config.PLAN_CACHE_TTL_MS);
  const rateLimits = new RateLimits(config, logger);
  const providerWebhooks = providerWebhookForwarder(config.CATALOG_HTTP_URL, logger);
  const app = createApp({
    config,
    identity,
    catalog,
    billing,
    policy,
    notification,
    documents,
    portal,
    analytics,
    apiKeyCache,
    planCache,
    rateLimits,
    dashboard: { sessions: dashboardSessions },
    idempotency: { store: idempotencyStore, clock: systemClock, logger, lockMs: config.IDEMPOTENCY_LOCK_MS },
    logger,
  });
  const nats = await connectNats(config.NATS_URL, 'gateway');
  const stopListening = listenForKeyRevocations(nats, config.EVENTS_SUBJECT_PREFIX, apiKeyCache, logger);
  const stopPlanChanges = await listenForPlanChanges(nats, config.EVENTS_SUBJECT_PREFIX, planCache, logger);

  // The provider's webhook (one per charge) is answered before the app: see providerWebhookForwarder.
  const server = await listenHttp(
    (req, res) => (providerWebhooks.matches(req) ? providerWebhooks.forward(req, res) : app(req, res)),
    config.PORT,
  );
  const port = server.port;
  logger.info({ port, public_url: config.PUBLIC_URL }, 'gateway listening');

  return {
    port,
    async stop() {
      // In-flight requests finish (runUntilSignalled bounds the wait).
      await server.close();
      identity.close();
      catalog.close();
      billing.close();
      policy.close();
      notification.close();
      documents.close();
      portal.close();
      analytics.close();
      await providerWebhooks.close();
      stopListening();
      stopPlanChanges();
      await nats.close();
      await purge.stop();
      await sequelize.close();
      await rateLimits.close();
    },
  };
}
