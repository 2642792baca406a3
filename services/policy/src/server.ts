import {
  openDatabase,
  ProjectClocks,
  grpcTransport,
  startGrpcServer,
  systemClock,
  type Logger,
  databaseOptionsFrom,
} from '@billing/platform';
import { policyV1 } from '@billing/proto';
import type { PolicyConfig } from './config';
import { policyMigrations } from './db/migrations';
import { CancellationPolicyModel } from './db/models/cancellation-policy.model';
import { CancellationPolicyRepository } from './db/repositories/cancellation-policy.repository';
import { policyHandlers } from './handlers/policy.handlers';
import type { PolicyDeps } from './policy-deps';

export interface RunningPolicy {
  port: number;
  stop(): Promise<void>;
}

/**
 * Wiring: database and gRPC server. No NATS connection or outbox relay: policy emits no events
 * (docs/api-behaviour.md §12 names none), so neither would ever carry anything.
 */
export async function startPolicy(config: PolicyConfig, logger: Logger): Promise<RunningPolicy> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, 'policy'),
    models: [CancellationPolicyModel],
    migrations: policyMigrations,
    logger,
  });
  const deps: PolicyDeps = {
    sequelize,
    policies: new CancellationPolicyRepository(),
    clocks: new ProjectClocks(sequelize, systemClock),
  };

  const grpc = await startGrpcServer({
    transport,
    port: config.POLICY_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'policy.v1.PolicyService',
        definition: policyV1.PolicyServiceService,
        implementation: policyHandlers(deps, logger),
      },
    ],
  });
  logger.info({ grpc_port: grpc.port }, 'policy listening');
  return {
    port: grpc.port,
    async stop() {
      await grpc.shutdown();
      await sequelize.close();
    },
  };
}
