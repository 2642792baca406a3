import type { ProjectScope } from '@billing/platform';
import type { CustomerModel, InvoiceModel, SubscriptionModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

export interface CustomerDetail {
  customer: CustomerModel;
  subscriptions: SubscriptionModel[];
  invoices: InvoiceModel[];
}

/** The customer with all its subscriptions and invoices, newest first (GET /customers/{id}). */
export async function getCustomer(deps: BillingDeps, scope: ProjectScope, customerId: string): Promise<CustomerDetail> {
  const customer = await deps.customers.get(scope, customerId);
  const [subscriptions, invoices] = await Promise.all([
    deps.subscriptions.listForCustomer(customer.id),
    deps.invoices.listForCustomer(customer.id),
  ]);
  return { customer, subscriptions, invoices };
}
