import { newCustomerCode } from '../domain/codes';
import type { CustomerModel } from '../db/models';
import type { SandboxDeps } from '../sandbox-deps';

export interface CustomerDetails {
  email: string;
  firstName?: string;
  lastName?: string;
}

/** As at Paystack, an email already known returns its existing customer rather than an error. */
export function findOrCreateCustomer(deps: SandboxDeps, details: CustomerDetails): Promise<CustomerModel> {
  return deps.customers.findOrCreate({
    customerCode: newCustomerCode(),
    email: details.email,
    firstName: details.firstName ?? null,
    lastName: details.lastName ?? null,
    createdAt: deps.clock.now(),
  });
}
