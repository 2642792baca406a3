import {
  createPromiseClient,
  listenHttp,
  openServiceStorage,
  ProjectClocks,
  grpcTransport,
  startGrpcServer,
  registerSchedulerBacklog,
  startPollingLoop,
  systemClock,
  type Logger,
} from '@billing/platform';
import { PaymentProviders, webhookSecretsFor } from '@billing/payments';
import { billingV1, catalogV1 } from '@billing/proto';
import type { CatalogConfig } from './config';
import { catalogMigrations } from './db/migrations';
import { CheckoutPaymentModel } from './db/models/checkout-payment.model';
import { CheckoutSessionModel } from './db/models/checkout-session.model';
import { CouponModel } from './db/models/coupon.model';
import { PlanModel } from './db/models/plan.model';
import { CheckoutPaymentRepository } from './db/repositories/checkout-payment.repository';
import { CheckoutSessionRepository } from './db/repositories/checkout-session.repository';
import { CouponRepository } from './db/repositories/coupon.repository';
import { PlanRepository } from './db/repositories/plan.repository';
import { PlanChangePublisher } from './events/plan-change.publisher';
import { catalogHandlers } from './handlers/catalog.handlers';
import { createCheckoutPagesApp } from './http/checkout-pages';
import { isProviderWebhook, providerWebhookListener } from './http/provider-webhook';
import type { CatalogDeps } from './catalog-deps';
import { expireDueCheckoutSessions } from './usecases/scheduler/expire-due-checkout-sessions.usecase';
import { settleLateCheckoutPayments } from './usecases/scheduler/settle-late-checkout-payments.usecase';

export interface RunningCatalog {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, events, billing client, gRPC server, hosted pages, expiry sweep. */
export async function startCatalog(config: CatalogConfig, logger: Logger): Promise<RunningCatalog> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const storage = await openServiceStorage({
    service: 'catalog',
    config,
    models: [PlanModel, CheckoutSessionModel, CheckoutPaymentModel, CouponModel],
    migrations: catalogMigrations,
    logger,
  });
  const billing = createPromiseClient(
    billingV1.BillingServiceClient,
    config.BILLING_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const providers = new PaymentProviders(config);
  const deps: CatalogDeps = {
    sequelize: storage.sequelize,
    plans: new PlanRepository(),
    planChanges: new PlanChangePublisher(storage.nats, config.EVENTS_SUBJECT_PREFIX),
    checkoutSessions: new CheckoutSessionRepository(),
    checkoutPayments: new CheckoutPaymentRepository(),
    coupons: new CouponRepository(),
    clock: systemClock,
    clocks: new ProjectClocks(storage.sequelize, systemClock),
    billing,
    paymentsFor: (livemode) => providers.forMode(livemode),
    webhookSecrets: webhookSecretsFor(config),
    publicUrl: config.PUBLIC_URL,
    paymentInFlightMs: config.CHECKOUT_PAYMENT_IN_FLIGHT_MS,
    logger,
  };

  const grpc = await startGrpcServer({
    transport,
    port: config.CATALOG_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'catalog.v1.CatalogService',
        definition: catalogV1.CatalogServiceService,
        implementation: catalogHandlers(deps, logger),
      },
    ],
  });
  const pagesApp = createCheckoutPagesApp(deps, logger);
  const providerWebhook = providerWebhookListener(deps, logger);
  const pages = await listenHttp(
    (req, res) => (isProviderWebhook(req) ? providerWebhook(req, res) : pagesApp(req, res)),
    config.CATALOG_HTTP_PORT,
  );
  registerSchedulerBacklog(logger, async () => ({
    checkout_expiry: await deps.checkoutSessions.countExpired(deps.clock.now()),
  }));
  // One expiry sweep per mode, so that a test-mode backlog never delays a live session's expiry;
  // payments of sessions that ended while the payer was paying are watched by a loop of their own.
  const expirySweeps = [
    ...[true, false].map((livemode) =>
      startPollingLoop(
        livemode ? 'checkout-expiry-live' : 'checkout-expiry-test',
        config.CHECKOUT_EXPIRY_SWEEP_MS,
        () => expireDueCheckoutSessions(deps, livemode),
        logger,
      ),
    ),
    startPollingLoop(
      'checkout-late-payments',
      config.CHECKOUT_EXPIRY_SWEEP_MS,
      () => settleLateCheckoutPayments(deps),
      logger,
    ),
  ];
  logger.info({ grpc_port: grpc.port, http_port: config.CATALOG_HTTP_PORT }, 'catalog listening');
  return {
    port: grpc.port,
    async stop() {
      await Promise.all(expirySweeps.map((sweep) => sweep.stop()));
      await Promise.all([grpc.shutdown(), pages.close()]);
      billing.close();
      await providers.close();
      await storage.close();
    },
  };
}
