import { randomUUID } from 'node:crypto';
import { DomainError } from '@billing/platform';
import type { Transaction } from 'sequelize';
import type { ProjectModel } from '../db/models';
import { defaultKeyName } from '../domain/api-key';
import type { IdentityDeps } from '../identity-deps';
import { recordSellerDetails } from '../seller-details/record-seller-details';
import { issueApiKey, type IssuedApiKey } from './issue-api-key';

export interface CreatedProject {
  project: ProjectModel;
  apiKeys: IssuedApiKey[];
}

/**
 * Creates a project with one test and one live key, inside the caller's transaction, and records
 * merchant.seller_details_updated so that what keeps the seller per project (billing's invoices)
 * learns the new project's seller.
 */
export async function createProjectWithKeys(
  deps: IdentityDeps,
  merchantId: string,
  name: string,
  transaction: Transaction,
): Promise<CreatedProject> {
  // Locked before the project exists: a seller change waiting on it then lists the new project.
  const merchant = await deps.merchants.lockForShare(merchantId, transaction);
  if (!merchant) throw new DomainError('unauthenticated', 'Merchant not found');
  const now = deps.clock.now();
  const project = await deps.projects.create({ id: randomUUID(), merchantId, name, createdAt: now }, transaction);
  const apiKeys: IssuedApiKey[] = [];
  for (const isLive of [false, true]) {
    apiKeys.push(
      await issueApiKey(deps, { merchantId, projectId: project.id, name: defaultKeyName(isLive), isLive }, transaction),
    );
  }
  await recordSellerDetails(deps, merchant, transaction);
  return { project, apiKeys };
}
