import type { ProjectScope } from '@billing/platform';
import { validateCustomerFields, type CustomerFields } from '../../domain/customer-rules';
import { parseTaxExempt } from '../../domain/tax-rates';
import type { CustomerModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/**
 * What a PATCH changes: the customer's fields (buyer details for the invoices made from now on;
 * issued invoices keep the buyer they were made out to; the address replaced as a whole) and
 * how those invoices are taxed (NONE, EXEMPT or REVERSE, docs/api-behaviour.md §21).
 */
export type CustomerChanges = Omit<CustomerFields, 'email'> & { taxExempt?: string };

/**
 * Name, metadata, tax exemption and buyer details: the e-mail identifies the customer at the
 * provider, so it never changes.
 */
export async function updateCustomer(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  changes: CustomerChanges,
): Promise<CustomerModel> {
  const customer = await deps.customers.get(scope, customerId);
  const fields = validateCustomerFields(changes, { emailRequired: false });
  const taxExempt = changes.taxExempt ? parseTaxExempt(changes.taxExempt) : undefined;
  const buyer = {
    ...(fields.address !== undefined && { address: fields.address }),
    ...(fields.taxId !== undefined && { taxId: fields.taxId }),
    ...(fields.preferredLocale !== undefined && { preferredLocale: fields.preferredLocale }),
  };
  if (
    changes.name === undefined &&
    changes.metadata === undefined &&
    taxExempt === undefined &&
    Object.keys(buyer).length === 0
  ) {
    return customer;
  }
  return deps.customers.save(customer, {
    ...(changes.name !== undefined && { name: fields.name ?? null }),
    ...(changes.metadata !== undefined && { metadata: fields.metadata }),
    ...(taxExempt !== undefined && { taxExempt }),
    ...buyer,
    updatedAt: await deps.clocks.now(scope),
  });
}
