import type { Sequelize } from 'sequelize-typescript';
import type { Clock } from '@billing/platform';
import type { ApiKeyRepository } from './db/repositories/api-key.repository';
import type { MerchantRepository } from './db/repositories/merchant.repository';
import type { ProjectRepository } from './db/repositories/project.repository';
import type { PasswordHasher } from './domain/password';

/** What identity's use cases depend on; built once in server.ts. */
export interface IdentityDeps {
  sequelize: Sequelize;
  merchants: MerchantRepository;
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  clock: Clock;
  passwords: PasswordHasher;
  jwt: { secret: string; ttlSeconds: number };
}
