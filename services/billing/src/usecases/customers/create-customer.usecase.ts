import { randomUUID } from 'node:crypto';
import { DomainError, recordEvent, type ProjectScope } from '@billing/platform';
import { validateCustomerFields, type CustomerFields } from '../../domain/customer-rules';
import { parseTaxExempt } from '../../domain/tax-rates';
import type { CustomerModel } from '../../db/models';
import { customerEvents } from '../../events/customer.events';
import type { BillingDeps } from '../../billing-deps';
import { callProvider } from '../../provider-call';

/** A new customer: its e-mail, and what it is taxed and invoiced as (docs/api-behaviour.md §21, §22). */
export type NewCustomerInput = Omit<CustomerFields, 'email' | 'clearedFields'> & {
  email: string;
  /** NONE (the default), EXEMPT or REVERSE. */
  taxExempt?: string;
};

const duplicateEmail = () =>
  new DomainError('already_exists', 'A customer with this email already exists in this project and mode');

/**
 * Creates the customer here and at the payment provider (its code is `gateway_customer_id`).
 * No provider, no customer: a record without its provider twin could never be charged.
 */
export async function createCustomer(
  deps: BillingDeps,
  scope: ProjectScope,
  input: NewCustomerInput,
): Promise<CustomerModel> {
  const fields = validateCustomerFields(input, { emailRequired: true });
  const taxExempt = input.taxExempt ? parseTaxExempt(input.taxExempt) : 'NONE';
  const email = fields.email!;
  // Checked before the provider call, so a duplicate does not even reach the provider.
  if (await deps.customers.findByEmail(scope, email)) throw duplicateEmail();
  const atProvider = await callProvider('create the customer', () =>
    deps.providerFor(scope.livemode).createCustomer({ email, name: fields.name }),
  );
  const now = await deps.clocks.now(scope);
  try {
    return await deps.sequelize.transaction(async (transaction) => {
      const customer = await deps.customers.create(
        scope,
        {
          id: randomUUID(),
          email,
          name: fields.name ?? null,
          gatewayCustomerId: atProvider.customerCode,
          metadata: fields.metadata ?? {},
          taxExempt,
          address: fields.address,
          taxId: fields.taxId,
          preferredLocale: fields.preferredLocale,
          createdAt: now,
        },
        transaction,
      );
      await recordEvent(deps.sequelize, transaction, customerEvents.created(customer, now));
      return customer;
    });
  } catch (err) {
    // Lost a race with another request (or a checkout) for the same e-mail.
    if ((err as { name?: string }).name === 'SequelizeUniqueConstraintError') throw duplicateEmail();
    throw err;
  }
}
