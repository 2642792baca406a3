import { createLogger, createPromiseClient, grpcTransport } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { loadAnalyticsConfig } from './config';
import { openAnalytics } from './server';
import { rebuildReadModel } from './usecases/rebuild/rebuild-read-model.usecase';

/**
 * The operator's rebuild of the read model (docs/deployment.md, "Analytics rebuild"):
 * `npm run analytics:rebuild` with analytics' environment (its database, billing's address and
 * its own client certificate). The live consumer waits while it runs, then carries on.
 */
async function rebuild(): Promise<void> {
  const config = loadAnalyticsConfig();
  const logger = createLogger('analytics-rebuild', config.LOG_LEVEL);
  const transport = grpcTransport(config, logger);
  // Its exclusive lock is held by a session of its own: a direct connection, never a pooler's.
  const { sequelize, deps } = await openAnalytics(config, logger, { direct: true });
  const billing = createPromiseClient(
    billingV1.BillingServiceClient,
    config.BILLING_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  try {
    const counts = await rebuildReadModel({ ...deps, billing });
    process.stdout.write(
      `analytics rebuild: ${counts.events} event(s) read in ${counts.pages} page(s), ${counts.applied} applied\n`,
    );
  } finally {
    billing.close();
    await sequelize.close();
  }
}

rebuild().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
