import { requireActiveMerchant } from '../../access/require-active-merchant';
import { assertName } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';
import { createProjectWithKeys, type CreatedProject } from '../../provisioning/create-project-with-keys';

export async function createProject(deps: IdentityDeps, merchantId: string, name: string): Promise<CreatedProject> {
  assertName(name, 'name');
  await requireActiveMerchant(deps, merchantId);
  return deps.sequelize.transaction((transaction) => createProjectWithKeys(deps, merchantId, name.trim(), transaction));
}
