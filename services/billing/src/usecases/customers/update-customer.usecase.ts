import type { ProjectScope } from '@billing/platform';
import { validateCustomerFields } from '../../domain/customer-rules';
import type { CustomerModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

export interface CustomerChanges {
  /** An empty name clears it. */
  name?: string;
  metadata?: Record<string, unknown>;
}

/** Name and metadata only: the e-mail identifies the customer at the provider. */
export async function updateCustomer(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  changes: CustomerChanges,
): Promise<CustomerModel> {
  const customer = await deps.customers.get(scope, customerId);
  const fields = validateCustomerFields(changes, { emailRequired: false });
  if (changes.name === undefined && changes.metadata === undefined) return customer;
  return deps.customers.save(customer, {
    ...(changes.name !== undefined && { name: fields.name ?? null }),
    ...(changes.metadata !== undefined && { metadata: fields.metadata }),
    updatedAt: await deps.clocks.now(scope),
  });
}
