import type { ProjectModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

export function listProjects(deps: IdentityDeps, merchantId: string): Promise<ProjectModel[]> {
  return deps.projects.listForMerchant(merchantId);
}
