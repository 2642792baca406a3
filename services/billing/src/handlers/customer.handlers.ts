import { postalAddressOfMessage, requireScope } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { BillingDeps } from '../billing-deps';
import { createBalanceAdjustment } from '../usecases/customers/create-balance-adjustment.usecase';
import { createCustomer } from '../usecases/customers/create-customer.usecase';
import { getCardOnFile } from '../usecases/customers/get-card-on-file.usecase';
import { getCustomer } from '../usecases/customers/get-customer.usecase';
import { listBalanceTransactions } from '../usecases/customers/list-balance-transactions.usecase';
import { listCustomers } from '../usecases/customers/list-customers.usecase';
import { setCardBehavior } from '../usecases/customers/set-card-behavior.usecase';
import { updateCustomer } from '../usecases/customers/update-customer.usecase';
import {
  toBalanceTransaction,
  toCustomer,
  toInvoiceSummary,
  toSubscriptionSummary,
  type BillingHandlers,
} from './billing-messages';

/** The buyer details of a request (docs/api-behaviour.md §22), as the use cases take them. */
const buyerDetailsOf = (req: billingV1.CreateCustomerRequest | billingV1.UpdateCustomerRequest) => ({
  address: req.address && postalAddressOfMessage(req.address),
  taxId: req.taxId,
  preferredLocale: req.preferredLocale,
});

/**
 * Customers and their balance (docs/api-behaviour.md §10, §20) and the test helper that sets how a
 * customer's saved card answers (§16.2). Thin: proto request -> use case -> proto response.
 */
export function customerHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async createCustomer(req) {
      const customer = await createCustomer(deps, requireScope(req.scope), {
        email: req.email,
        name: req.name,
        metadata: req.metadata,
        taxExempt: req.taxExempt,
        ...buyerDetailsOf(req),
      });
      return { customer: toCustomer(customer) };
    },
    async listCustomers(req) {
      const customers = await listCustomers(
        deps,
        requireScope(req.scope),
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        { email: req.email },
      );
      return { customers: customers.map(toCustomer) };
    },
    async getCustomer(req) {
      const detail = await getCustomer(deps, requireScope(req.scope), req.customerId);
      return {
        customer: toCustomer(detail.customer),
        subscriptions: detail.subscriptions.map(toSubscriptionSummary),
        invoices: detail.invoices.map(toInvoiceSummary),
      };
    },
    async getCardOnFile(req) {
      const card = await getCardOnFile(deps, requireScope(req.scope), req.customerId);
      return {
        card: card
          ? {
              brand: card.brand ?? '',
              last4: card.last4 ?? '',
              expMonth: card.expMonth ?? '',
              expYear: card.expYear ?? '',
            }
          : undefined,
      };
    },
    async updateCustomer(req) {
      const customer = await updateCustomer(deps, requireScope(req.scope), req.customerId, {
        name: req.name,
        metadata: req.metadata,
        taxExempt: req.taxExempt,
        ...buyerDetailsOf(req),
        clearedFields: req.clearedFields,
      });
      return { customer: toCustomer(customer) };
    },
    async createBalanceAdjustment(req) {
      const transaction = await createBalanceAdjustment(deps, requireScope(req.scope), {
        customerId: req.customerId,
        amount: req.amount,
        description: req.description,
        idempotencyKey: req.idempotencyKey,
        currency: req.currency,
      });
      return { transaction: toBalanceTransaction(transaction) };
    },
    async listBalanceTransactions(req) {
      const transactions = await listBalanceTransactions(deps, requireScope(req.scope), req.customerId, {
        limit: req.page?.limit,
        startingAfter: req.page?.startingAfter || undefined,
      });
      return { transactions: transactions.map(toBalanceTransaction) };
    },
    async setCardBehavior(req) {
      const behavior = await setCardBehavior(deps, requireScope(req.scope), req.customerId, req.behavior);
      return { customerId: req.customerId, behavior };
    },
  };
}
