import express, { type Express } from 'express';
import { listenHttp, openDatabase, systemClock, type Logger, databaseOptionsFrom } from '@billing/platform';
import type { SandboxConfig } from './config';
import { sandboxMigrations } from './db/migrations';
import { sandboxModels } from './db/models';
import { AuthorizationRepository } from './db/repositories/authorization.repository';
import { CustomerRepository } from './db/repositories/customer.repository';
import { RefundRepository } from './db/repositories/refund.repository';
import { TransactionRepository } from './db/repositories/transaction.repository';
import { customerRoutes } from './handlers/customers.handlers';
import { paymentPageRoutes } from './handlers/payment-page.handlers';
import { refundRoutes } from './handlers/refunds.handlers';
import { sandboxControlRoutes } from './handlers/sandbox-controls.handlers';
import { transactionRoutes } from './handlers/transactions.handlers';
import { errorHandler, notFoundHandler } from './http/errors';
import { providerLatency } from './http/provider-latency';
import { requestLog } from './http/request-log';
import { requireSecretKey } from './http/secret-key';
import type { SandboxDeps } from './sandbox-deps';
import { WebhookSender } from './webhooks/webhook-sender';

/** The whole HTTP surface: Paystack's API subset, the hosted payment page, the sandbox controls. */
export function createApp(deps: SandboxDeps, secretKey: string, latencyMs = 0): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(deps.logger));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // The payer's browser: no key, the access code in the URL is the credential.
  app.use('/pay', paymentPageRoutes(deps));

  const api = [requireSecretKey(secretKey), express.json({ limit: '1mb' })];
  // Paystack's API takes a real provider's time; the sandbox's own controls answer at once.
  const paystackApi = [...api, providerLatency(latencyMs)];
  app.use('/customer', paystackApi, customerRoutes(deps));
  app.use('/transaction', paystackApi, transactionRoutes(deps));
  app.use('/refund', paystackApi, refundRoutes(deps));
  app.use('/sandbox', api, sandboxControlRoutes(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

export interface RunningSandboxProvider {
  port: number;
  stop(): Promise<void>;
}

/** Wiring: its own ledger database (no NATS: it is an outside party), the app, the HTTP server. */
export async function startSandboxProvider(config: SandboxConfig, logger: Logger): Promise<RunningSandboxProvider> {
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'sandbox-provider'),
    models: sandboxModels,
    migrations: sandboxMigrations,
    logger,
  });
  const webhooks = new WebhookSender({ url: config.SANDBOX_WEBHOOK_URL, secret: config.SANDBOX_SECRET_KEY, logger });
  const deps: SandboxDeps = {
    sequelize,
    customers: new CustomerRepository(),
    authorizations: new AuthorizationRepository(),
    transactions: new TransactionRepository(),
    refunds: new RefundRepository(),
    clock: systemClock,
    webhooks,
    logger,
    publicUrl: config.SANDBOX_PUBLIC_URL,
  };

  const server = await listenHttp(
    createApp(deps, config.SANDBOX_SECRET_KEY, config.SANDBOX_LATENCY_MS),
    config.SANDBOX_PROVIDER_PORT,
  );
  const port = server.port;
  logger.info(
    {
      port,
      public_url: config.SANDBOX_PUBLIC_URL,
      webhooks: Boolean(config.SANDBOX_WEBHOOK_URL),
      latency_ms: config.SANDBOX_LATENCY_MS,
    },
    'sandbox provider listening',
  );

  return {
    port,
    async stop() {
      await server.close();
      await webhooks.stop();
      await sequelize.close();
    },
  };
}
