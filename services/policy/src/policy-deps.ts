import type { Sequelize } from 'sequelize-typescript';
import type { ProjectClocks } from '@billing/platform';
import type { CancellationPolicyRepository } from './db/repositories/cancellation-policy.repository';

/** What policy's use cases depend on; built once in server.ts. */
export interface PolicyDeps {
  sequelize: Sequelize;
  policies: CancellationPolicyRepository;
  /** Per-project time: real in live mode, this service's copy of the test clock in test mode. */
  clocks: ProjectClocks;
}
