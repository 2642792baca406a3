import {
  createPromiseClient,
  EventConsumer,
  openServiceStorage,
  ParkedEvents,
  ProjectClocks,
  grpcTransport,
  registerConsumerLagMetrics,
  registerSchedulerBacklog,
  startGrpcServer,
  startPollingLoop,
  systemClock,
  type Logger,
  eventStreamSettings,
} from '@billing/platform';
import { PaymentProviders, SandboxControlsClient } from '@billing/payments';
import { billingV1, identityV1, policyV1 } from '@billing/proto';
import type { BillingConfig } from './config';
import { billingMigrations } from './db/migrations';
import { billingModels } from './db/models';
import { ANALYTICS_FACT_ROWS, AnalyticsEventRepository } from './db/repositories/analytics-event.repository';
import { CustomerBalanceRepository } from './db/repositories/customer-balance.repository';
import { CustomerRepository } from './db/repositories/customer.repository';
import { DueWorkRepository } from './db/repositories/due-work.repository';
import { IdempotencyKeyRepository } from './db/repositories/idempotency-key.repository';
import { InvoicePartyRepository } from './db/repositories/invoice-party.repository';
import { InvoiceRepository } from './db/repositories/invoice.repository';
import { PaymentAuthorizationRepository } from './db/repositories/payment-authorization.repository';
import { PaymentRepository } from './db/repositories/payment.repository';
import { RefundRepository } from './db/repositories/refund.repository';
import { CardUpdateRepository } from './db/repositories/card-update.repository';
import { HostedInvoicePaymentRepository } from './db/repositories/hosted-invoice-payment.repository';
import { DocumentLinks } from './domain/document-links';
import { settleCardUpdates } from './usecases/scheduler/settle-card-updates.usecase';
import { settleHostedInvoicePayments } from './usecases/scheduler/settle-hosted-invoice-payments.usecase';
import { CreditNoteRepository } from './db/repositories/credit-note.repository';
import { SubscriptionPlanRepository } from './db/repositories/subscription-plan.repository';
import { SubscriptionRepository } from './db/repositories/subscription.repository';
import { TaxRateRepository } from './db/repositories/tax-rate.repository';
import { UsageRecordRepository } from './db/repositories/usage-record.repository';
import { billingHandlers } from './handlers/billing.handlers';
import type { BillingDeps } from './billing-deps';
import { renewDueSubscriptions } from './usecases/scheduler/renew-due-subscriptions.usecase';
import { expireIdempotencyKeys } from './usecases/scheduler/expire-idempotency-keys.usecase';
import { issueDueRefunds } from './usecases/scheduler/issue-due-refunds.usecase';
import { dueWorkCounts } from './scheduling/billing-pass';
import { settleFirstCharges } from './usecases/scheduler/settle-first-charges.usecase';
import { keepSellers } from './usecases/sellers/keep-sellers.usecase';
import { SELLER_DETAILS_UPDATED, sellersAnnounced } from './events/merchant.events';

/**
 * The durable JetStream consumer shared by billing's replicas: identity's seller events, for the
 * copy of each project's seller that invoices keep (docs/events-and-test-mode.md).
 */
const SELLER_CONSUMER = 'billing-seller-details';

/** How often expired Idempotency-Key records are deleted: the table only needs to stay small. */
const IDEMPOTENCY_KEY_SWEEP_MS = 60 * 60 * 1000;

export interface RunningBilling {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: database, events (the outbox relay, the seller consumer), payment providers, clients, gRPC server. */
export async function startBilling(config: BillingConfig, logger: Logger): Promise<RunningBilling> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const storage = await openServiceStorage({
    service: 'billing',
    config,
    models: billingModels,
    migrations: billingMigrations,
    logger,
    // Its analytics facts are the history a rebuild reads (ListAnalyticsEvents): kept.
    retention: { outboxKeep: ANALYTICS_FACT_ROWS, parkedEvents: true },
  });

  const providers = new PaymentProviders(config);
  const policy = createPromiseClient(
    policyV1.PolicyServiceClient,
    config.POLICY_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const identity = createPromiseClient(
    identityV1.IdentityServiceClient,
    config.IDENTITY_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  const deps: BillingDeps = {
    sequelize: storage.sequelize,
    customers: new CustomerRepository(),
    balances: new CustomerBalanceRepository(),
    authorizations: new PaymentAuthorizationRepository(),
    subscriptions: new SubscriptionRepository(),
    subscriptionPlans: new SubscriptionPlanRepository(),
    invoices: new InvoiceRepository(),
    invoiceParties: new InvoicePartyRepository(storage.sequelize),
    taxRates: new TaxRateRepository(),
    dueWork: new DueWorkRepository(storage.sequelize),
    payments: new PaymentRepository(),
    refunds: new RefundRepository(),
    creditNotes: new CreditNoteRepository(),
    hostedInvoicePayments: new HostedInvoicePaymentRepository(),
    cardUpdates: new CardUpdateRepository(),
    documentLinks: new DocumentLinks(config.PUBLIC_URL, config.DOCUMENT_LINKS_KEY),
    usage: new UsageRecordRepository(),
    idempotencyKeys: new IdempotencyKeyRepository(storage.sequelize),
    analyticsEvents: new AnalyticsEventRepository(storage.sequelize),
    policy,
    identity,
    providerFor: (livemode) => providers.forMode(livemode),
    clock: systemClock,
    clocks: new ProjectClocks(storage.sequelize, systemClock),
    logger,
    dunningRetryDays: config.DUNNING_RETRY_DAYS,
    paymentSettleAfterMs: config.PAYMENT_SETTLE_AFTER_MS,
    providerCallsInFlight: config.PROVIDER_CALLS_IN_FLIGHT,
    testModeBudget: {
      batchSize: config.TEST_MODE_SCHEDULER_BATCH_SIZE,
      concurrency: config.TEST_MODE_SCHEDULER_CONCURRENCY,
    },
    sandboxControls: new SandboxControlsClient({
      baseUrl: config.SANDBOX_PROVIDER_URL,
      secretKey: config.SANDBOX_SECRET_KEY,
    }),
    afterRefundSent: config.BILLING_TEST_CRASH_AFTER_REFUND_SENT
      ? () => {
          logger.warn('BILLING_TEST_CRASH_AFTER_REFUND_SENT: killing billing after the provider took a refund');
          process.kill(process.pid, 'SIGKILL');
        }
      : undefined,
  };
  const grpc = await startGrpcServer({
    transport,
    port: config.BILLING_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'billing.v1.BillingService',
        definition: billingV1.BillingServiceService,
        implementation: billingHandlers(deps, logger),
      },
    ],
  });
  logger.info({ port: grpc.port }, 'billing gRPC server listening');
  // Parks a seller event that keeps failing, as notification does with its events.
  const sellerEvents = new EventConsumer({
    nats: storage.nats,
    stream: eventStreamSettings(config),
    durableName: SELLER_CONSUMER,
    eventType: SELLER_DETAILS_UPDATED,
    logger,
    parked: new ParkedEvents(storage.sequelize),
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    redeliveryDelayMs: config.EVENT_REDELIVERY_DELAY_MS,
    now: () => systemClock.now(),
    handle: (events) => keepSellers(deps, sellersAnnounced(events)),
  });
  await sellerEvents.start();
  registerConsumerLagMetrics({
    nats: storage.nats,
    stream: config.EVENTS_STREAM,
    durableNames: [SELLER_CONSUMER],
    logger,
  });
  // Renewals, trial ends, dunning retries and settlement of unknown charge outcomes: one loop
  // per mode, each claiming only its own mode's rows, so that a test clock moved far ahead (a
  // backlog of test renewals) is worked through beside live renewals, never in front of them.
  const schedulers = [true, false].map((livemode) =>
    startPollingLoop(
      livemode ? 'billing-scheduler-live' : 'billing-scheduler-test',
      config.RENEWAL_POLL_MS,
      () =>
        renewDueSubscriptions(deps, {
          livemode,
          settleAfterMs: config.PAYMENT_SETTLE_AFTER_MS,
          callsInFlight: (max) => providers.callsInFlight(livemode, max),
        }),
      logger,
    ),
  );
  registerSchedulerBacklog(logger, async () => {
    const due = await dueWorkCounts(deps);
    return { billing_renewals: due.subscriptions, billing_dunning: due.invoices };
  });
  // First charges of POST /subscriptions whose request died: refunded, nothing was created.
  const firstCharges = startPollingLoop(
    'first-charge-settlement',
    config.RENEWAL_POLL_MS,
    () => settleFirstCharges(deps, { olderThanMs: config.PAYMENT_SETTLE_AFTER_MS }),
    logger,
  );
  // Refunds the provider could not take, whose outcome is unknown, or a crash left PROCESSING.
  const refundRetries = startPollingLoop(
    'refund-retry',
    config.RENEWAL_POLL_MS,
    () => issueDueRefunds(deps, { olderThanMs: config.PAYMENT_SETTLE_AFTER_MS }),
    logger,
  );
  // Hosted "Pay"s whose payer never came back: applied once the provider has a final word.
  const hostedPayments = startPollingLoop(
    'hosted-invoice-payment-settlement',
    config.RENEWAL_POLL_MS,
    () => settleHostedInvoicePayments(deps, { olderThanMs: config.PAYMENT_SETTLE_AFTER_MS }),
    logger,
  );
  // Card updates whose payer never came back to the portal: applied once the provider has a final word.
  const cardUpdates = startPollingLoop(
    'card-update-settlement',
    config.RENEWAL_POLL_MS,
    () => settleCardUpdates(deps, { olderThanMs: config.PAYMENT_SETTLE_AFTER_MS }),
    logger,
  );
  // Idempotency-Key records past their 24 h lifetime, which answer no retry any more.
  const keyExpiry = startPollingLoop(
    'idempotency-key-expiry',
    IDEMPOTENCY_KEY_SWEEP_MS,
    () => expireIdempotencyKeys(deps),
    logger,
  );
  return {
    port: grpc.port,
    async stop() {
      await sellerEvents.stop();
      await keyExpiry.stop();
      await cardUpdates.stop();
      await hostedPayments.stop();
      await refundRetries.stop();
      await firstCharges.stop();
      await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
      await grpc.shutdown();
      policy.close();
      identity.close();
      await providers.close();
      await storage.close();
    },
  };
}
