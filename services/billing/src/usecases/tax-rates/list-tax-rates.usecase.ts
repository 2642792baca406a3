import type { PageRequest, ProjectScope } from '@billing/platform';
import type { TaxRateModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/** One page of the scope's tax rates, active and inactive, newest first. */
export function listTaxRates(deps: BillingDeps, scope: ProjectScope, page: PageRequest): Promise<TaxRateModel[]> {
  return deps.taxRates.list(scope, page);
}
