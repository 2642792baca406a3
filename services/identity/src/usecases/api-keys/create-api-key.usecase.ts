import { requireActiveMerchant } from '../../access/require-active-merchant';
import { findOwnProject } from '../../access/find-own-project';
import { assertName } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';
import { issueApiKey, type IssuedApiKey } from '../../provisioning/issue-api-key';

export async function createApiKey(
  deps: IdentityDeps,
  input: { merchantId: string; projectId: string; name: string; isLive: boolean },
): Promise<IssuedApiKey> {
  assertName(input.name, 'name');
  await requireActiveMerchant(deps, input.merchantId);
  await findOwnProject(deps, input.merchantId, input.projectId);
  return deps.sequelize.transaction((transaction) =>
    issueApiKey(deps, { ...input, name: input.name.trim() }, transaction),
  );
}
