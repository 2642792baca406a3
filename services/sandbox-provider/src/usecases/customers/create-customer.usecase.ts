import { newCustomerCode } from '../../domain/codes';
import type { CustomerModel } from '../../db/models';
import type { SandboxDeps } from '../../sandbox-deps';

export interface CreateCustomerCommand {
  email: string;
  firstName?: string;
  lastName?: string;
}

/** As at Paystack, an email already known returns its existing customer rather than an error. */
export function createCustomer(deps: SandboxDeps, command: CreateCustomerCommand): Promise<CustomerModel> {
  return deps.customers.findOrCreate({
    customerCode: newCustomerCode(),
    email: command.email,
    firstName: command.firstName ?? null,
    lastName: command.lastName ?? null,
    createdAt: deps.clock.now(),
  });
}
