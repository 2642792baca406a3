import { DomainError, requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { validatePlanSnapshot } from '../domain/checkout-completion';
import type { CustomerBalanceTransactionModel, CustomerModel, InvoiceModel, SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import { createBalanceAdjustment } from '../usecases/customers/create-balance-adjustment.usecase';
import { listBalanceTransactions } from '../usecases/customers/list-balance-transactions.usecase';
import { completeCheckout } from '../usecases/checkout/complete-checkout.usecase';
import { settleUnusedCheckoutPayment } from '../usecases/checkout/settle-unused-checkout-payment.usecase';
import { createCustomer } from '../usecases/customers/create-customer.usecase';
import { getCustomer } from '../usecases/customers/get-customer.usecase';
import { listCustomers } from '../usecases/customers/list-customers.usecase';
import { updateCustomer } from '../usecases/customers/update-customer.usecase';
import { billingEngineHandlers } from './billing-engine.handlers';
import { usageHandlers } from './usage.handlers';
import { requestedDiscount, subscriptionHandlers } from './subscription.handlers';

const toCustomer = (c: CustomerModel): billingV1.Customer => ({
  id: c.id,
  email: c.email,
  name: c.name ?? undefined,
  gatewayCustomerId: c.gatewayCustomerId ?? undefined,
  metadata: c.metadata,
  livemode: c.livemode,
  createdAt: c.createdAt,
  balance: c.balance,
  balanceCurrency: c.balanceCurrency ?? undefined,
});

const toBalanceTransaction = (t: CustomerBalanceTransactionModel): billingV1.BalanceTransaction => ({
  id: t.id,
  customerId: t.customerId,
  type: t.type,
  amount: t.amount,
  balanceAfter: t.balanceAfter,
  currency: t.currency,
  description: t.description ?? undefined,
  invoiceId: t.invoiceId ?? undefined,
  livemode: t.livemode,
  createdAt: t.createdAt,
});

const toSubscriptionSummary = (s: SubscriptionModel): billingV1.SubscriptionSummary => ({
  id: s.id,
  planId: s.planId,
  planName: s.planName,
  status: s.status,
  amount: s.amount,
  currency: s.currency,
  interval: s.interval,
  currentPeriodStart: s.currentPeriodStart,
  currentPeriodEnd: s.currentPeriodEnd,
  cancelledAt: s.cancelledAt ?? undefined,
  createdAt: s.createdAt,
});

const toInvoiceSummary = (i: InvoiceModel): billingV1.InvoiceSummary => ({
  id: i.id,
  amount: i.amount,
  currency: i.currency,
  status: i.status,
  dueDate: i.dueDate,
  paidAt: i.paidAt ?? undefined,
  createdAt: i.createdAt,
  discount: i.discount,
  creditApplied: i.creditApplied,
  amountDue: i.amountDue,
});

type BillingHandlers = UnaryHandlers<billingV1.BillingServiceServer>;

/** Checkout completion and customers. Thin: proto request -> use case -> proto response. */
function customerHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async completeCheckout(req) {
      if (!req.plan) throw DomainError.invalid([{ loc: ['plan'], msg: 'Field required', type: 'missing' }]);
      const plan = validatePlanSnapshot(req.plan);
      const completion = await completeCheckout(deps, requireScope(req.scope), {
        checkoutSessionId: req.checkoutSessionId,
        transactionReference: req.transactionReference,
        plan,
        discount: requestedDiscount(req.coupon, plan.currency),
        customerEmail: req.customerEmail,
        customerEmailTypedByPayer: req.customerEmailTypedByPayer,
        customerName: req.customerName,
        metadata: req.metadata ?? {},
      });
      return {
        customerId: completion.customerId,
        subscriptionId: completion.subscriptionId,
        invoiceId: completion.invoiceId ?? '',
        paymentOutcome: completion.paymentOutcome,
      };
    },
    async settleUnusedCheckoutPayment(req) {
      const outcome = await settleUnusedCheckoutPayment(deps, requireScope(req.scope), {
        checkoutSessionId: req.checkoutSessionId,
        transactionReference: req.transactionReference,
      });
      return { outcome };
    },
    async createCustomer(req) {
      const customer = await createCustomer(deps, requireScope(req.scope), {
        email: req.email,
        name: req.name,
        metadata: req.metadata,
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
    async updateCustomer(req) {
      const customer = await updateCustomer(deps, requireScope(req.scope), req.customerId, {
        name: req.name,
        metadata: req.metadata,
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
  };
}

/**
 * Every RPC of billing.v1, one module per area. A method no module implements answers
 * UNIMPLEMENTED (grpc-js does that for a missing handler).
 */
export function billingHandlers(deps: BillingDeps, logger: Logger): billingV1.BillingServiceServer {
  const handlers: Partial<BillingHandlers> = {
    ...customerHandlers(deps),
    ...billingEngineHandlers(deps),
    ...usageHandlers(deps),
    ...subscriptionHandlers(deps),
  };
  return unaryService(handlers, logger);
}
