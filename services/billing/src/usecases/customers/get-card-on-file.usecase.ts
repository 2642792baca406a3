import type { ProjectScope } from '@billing/platform';
import type { PaymentAuthorizationModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/**
 * The card on file the customer portal shows (docs/api-behaviour.md §24): brand, last 4 and expiry
 * of the card renewals charge; null when none is saved. The customer must be the scope's.
 */
export async function getCardOnFile(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
): Promise<PaymentAuthorizationModel | null> {
  const customer = await deps.customers.get(scope, customerId);
  return deps.authorizations.cardOnFile(customer.id);
}
