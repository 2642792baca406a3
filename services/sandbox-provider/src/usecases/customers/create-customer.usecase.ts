import type { CustomerModel } from '../../db/models';
import { findOrCreateCustomer, type CustomerDetails } from '../../customers/find-or-create-customer';
import type { SandboxDeps } from '../../sandbox-deps';

/** Paystack's POST /customer: an email already known answers its existing customer. */
export function createCustomer(deps: SandboxDeps, command: CustomerDetails): Promise<CustomerModel> {
  return findOrCreateCustomer(deps, command);
}
