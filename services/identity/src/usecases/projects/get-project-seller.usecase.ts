import { DomainError } from '@billing/platform';
import type { MerchantModel } from '../../db/models';
import { isUuid } from '../../domain/merchant-rules';
import type { IdentityDeps } from '../../identity-deps';

/**
 * The merchant whose details a project's invoices show as the seller (docs/api-behaviour.md
 * §22): for billing, which keeps a copy per project and asks here only for a project that has had
 * no merchant.seller_details_updated yet. Whether the merchant is still active does not matter:
 * invoices of a deactivated merchant still name it. NOT_FOUND for an unknown project.
 */
export async function getProjectSeller(deps: IdentityDeps, projectId: string): Promise<MerchantModel> {
  const project = isUuid(projectId) ? await deps.projects.findById(projectId) : null;
  const merchant = project && (await deps.merchants.findById(project.merchantId));
  if (!merchant) throw new DomainError('not_found', 'Project not found');
  return merchant;
}
