import type { PostalAddressInput, ProjectScope } from '@billing/platform';
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
  /**
   * Buyer details (docs/api-behaviour.md §22) for the invoices made from now on; issued invoices
   * keep the buyer they were made out to. The address is replaced as a whole.
   */
  address?: PostalAddressInput;
  taxId?: string;
  preferredLocale?: string;
  /** Buyer details to clear: `address`, `tax_id`. */
  clearedFields?: string[];
}

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
