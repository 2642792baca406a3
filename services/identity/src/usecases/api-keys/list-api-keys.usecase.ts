import { findOwnProject } from '../../access/find-own-project';
import type { ApiKeyModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

export async function listApiKeys(deps: IdentityDeps, merchantId: string, projectId?: string): Promise<ApiKeyModel[]> {
  if (projectId) await findOwnProject(deps, merchantId, projectId);
  return deps.apiKeys.listForMerchant(merchantId, projectId);
}
