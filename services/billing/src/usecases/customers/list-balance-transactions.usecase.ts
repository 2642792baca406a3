import type { PageRequest, ProjectScope } from '@billing/platform';
import type { CustomerBalanceTransactionModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/**
 * GET /customers/{id}/balance-adjustments (docs/api-behaviour.md §20): every change of the
 * customer's balance, newest first: adjustments, proration credits and credit used by invoices.
 */
export async function listBalanceTransactions(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  page: PageRequest,
): Promise<CustomerBalanceTransactionModel[]> {
  const customer = await deps.customers.get(scope, customerId);
  return deps.balances.list(scope, customer.id, page);
}
