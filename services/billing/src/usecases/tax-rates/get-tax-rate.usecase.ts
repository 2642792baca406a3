import type { ProjectScope } from '@billing/platform';
import type { TaxRateModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/** One tax rate of the scope: 404 unknown or of the other mode, 403 another project's. */
export function getTaxRate(deps: BillingDeps, scope: ProjectScope, taxRateId: string): Promise<TaxRateModel> {
  return deps.taxRates.get(scope, taxRateId);
}
