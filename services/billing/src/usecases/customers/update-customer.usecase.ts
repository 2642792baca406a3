import type { ProjectScope } from '@billing/platform';
import { validateCustomerFields } from '../../domain/customer-rules';
import { parseTaxExempt } from '../../domain/tax-rates';
import type { CustomerModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

export interface CustomerChanges {
  /** An empty name clears it. */
  name?: string;
  metadata?: Record<string, unknown>;
  /**
   * NONE, EXEMPT or REVERSE (docs/api-behaviour.md §21): how the invoices made from now on are
   * taxed; issued invoices keep theirs.
   */
  taxExempt?: string;
}

/** Name, metadata and tax exemption only: the e-mail identifies the customer at the provider. */
export async function updateCustomer(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  changes: CustomerChanges,
): Promise<CustomerModel> {
  const customer = await deps.customers.get(scope, customerId);
  const fields = validateCustomerFields(changes, { emailRequired: false });
  const taxExempt = changes.taxExempt ? parseTaxExempt(changes.taxExempt) : undefined;
  if (changes.name === undefined && changes.metadata === undefined && taxExempt === undefined) return customer;
  return deps.customers.save(customer, {
    ...(changes.name !== undefined && { name: fields.name ?? null }),
    ...(changes.metadata !== undefined && { metadata: fields.metadata }),
    ...(taxExempt !== undefined && { taxExempt }),
    updatedAt: await deps.clocks.now(scope),
  });
}
