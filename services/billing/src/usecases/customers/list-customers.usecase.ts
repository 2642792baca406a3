import type { PageRequest, ProjectScope } from '@billing/platform';
import type { CustomerModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/** One page of the scope's customers, newest first; `email` matches whatever its case. */
export function listCustomers(
  deps: BillingDeps,
  scope: ProjectScope,
  page: PageRequest,
  filter: { email?: string },
): Promise<CustomerModel[]> {
  return deps.customers.list(scope, page, { email: filter.email?.trim() || undefined });
}
