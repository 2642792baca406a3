import { z } from 'zod';
import { postalAddressMessage, toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import {
  appliedToInvoiceExample,
  balanceAdjustmentExample,
  BalanceTransactionSchema,
  CreateBalanceAdjustmentBody,
  CreateCustomerBody,
  customerDetailExample,
  CustomerDetailSchema,
  customerExample,
  CustomerIdParams,
  CustomerSchema,
  ListBalanceTransactionsQuery,
  ListCustomersQuery,
  toBalanceTransaction,
  toCustomer,
  toCustomerDetail,
  UpdateCustomerBody,
  updateCustomerRequest,
} from './customers.schemas';

export const customersResource: Resource = {
  tag: {
    name: 'Customers',
    description:
      'The people who pay a project. A paid checkout creates its customer (or finds it by e-mail) and saves the ' +
      'card that later renewals charge; a customer created here has no card until one of their checkouts is paid.',
  },
  prefixes: ['/customers'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createCustomer',
      summary: 'Create a customer',
      description:
        'Also creates the customer at the payment provider (`gateway_customer_id`). E-mails are unique per ' +
        'project and mode, whatever their case: a duplicate is a 409. A provider that cannot be reached is a 503 ' +
        'and nothing is created; one that refuses the customer is a 400 with its words. `tax_exempt` (NONE by ' +
        'default, EXEMPT or REVERSE) says whether its invoices are taxed. `address`, `tax_id` and ' +
        '`preferred_locale` (en by default, or fr) are the buyer details its invoices keep as they are when ' +
        'each invoice is created.',
      auth: 'apiKey',
      body: CreateCustomerBody,
      bodyExample: {
        email: EXAMPLE.customerEmail,
        name: 'Ada Obi',
        metadata: { crm_id: '4711' },
        address: customerExample.address,
      },
      errors: {
        400: 'The payment provider refused to create the customer: invalid email',
        409: 'A customer with this email already exists in this project and mode',
      },
      response: { status: 201, description: 'The customer', schema: CustomerSchema },
      responseExample: customerExample,
      async handle({ auth: { apiKey }, body }) {
        const { customer } = await billing.createCustomer({
          scope: scopeOf(apiKey),
          email: body.email,
          name: body.name,
          metadata: body.metadata,
          taxExempt: body.tax_exempt,
          address: body.address && postalAddressMessage(body.address),
          taxId: body.tax_id,
          preferredLocale: body.preferred_locale,
        });
        return toCustomer(required(customer, 'customer'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listCustomers',
      summary: 'List customers, newest first',
      description:
        '`email` finds one customer by e-mail (case-insensitive). Pages of `limit` (default 20, at most 100); ' +
        'the next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListCustomersQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of customers', schema: z.array(CustomerSchema) },
      responseExample: [customerExample],
      async handle({ auth: { apiKey }, query }) {
        const { customers } = await billing.listCustomers({
          scope: scopeOf(apiKey),
          page: pageOf(query),
          email: query.email,
        });
        return customers.map(toCustomer);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:customer_id',
      operationId: 'getCustomer',
      summary: 'Get a customer with its subscriptions and invoices',
      description: 'The customer, every subscription it has (any status) and every invoice, newest first.',
      auth: 'apiKey',
      params: CustomerIdParams,
      errors: { 403: 'Customer belongs to another project', 404: 'Customer not found' },
      response: {
        status: 200,
        description: 'The customer, its subscriptions and invoices',
        schema: CustomerDetailSchema,
      },
      responseExample: customerDetailExample,
      async handle({ auth: { apiKey }, params }) {
        return toCustomerDetail(await billing.getCustomer({ scope: scopeOf(apiKey), customerId: params.customer_id }));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:customer_id',
      operationId: 'updateCustomer',
      summary: "Update a customer's name, metadata, tax exemption or buyer details",
      description:
        'Send only the fields to change; `metadata` replaces the stored metadata as a whole, a new `address` ' +
        'the old one; `null` clears the address or the tax ID. A new `tax_exempt` or buyer detail applies to ' +
        'the invoices made from then on; issued invoices keep their tax and the buyer they were made out to. ' +
        'The e-mail cannot change: it identifies the customer at the payment provider.',
      auth: 'apiKey',
      params: CustomerIdParams,
      body: UpdateCustomerBody,
      bodyExample: { name: 'Ada Obi-Martins', metadata: { crm_id: '4711', segment: 'gold' } },
      errors: { 403: 'Customer belongs to another project', 404: 'Customer not found' },
      response: { status: 200, description: 'The updated customer', schema: CustomerSchema },
      responseExample: { ...customerExample, name: 'Ada Obi-Martins', metadata: { crm_id: '4711', segment: 'gold' } },
      async handle({ auth: { apiKey }, params, body }) {
        const { customer } = await billing.updateCustomer(
          updateCustomerRequest(scopeOf(apiKey), params.customer_id, body),
        );
        return toCustomer(required(customer, 'customer'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:customer_id/balance-adjustments',
      operationId: 'createBalanceAdjustment',
      summary: 'Grant a customer credit, or take it back',
      description:
        'A positive `amount` adds credit to the customer\u2019s `balance`, a negative one takes it back; the balance ' +
        'never goes below 0 (400, nothing changes). Every new invoice of the customer uses the balance before ' +
        'charging the card: the card is charged `amount_due` = `amount` - `credit_applied`, and an invoice the ' +
        'balance covers is PAID without a charge. Send an `Idempotency-Key`: a retry after a lost answer returns ' +
        'the first adjustment instead of making a second one.',
      auth: 'apiKey',
      params: CustomerIdParams,
      body: CreateBalanceAdjustmentBody,
      bodyExample: { amount: 3000, description: 'Goodwill credit for the March outage' },
      errors: {
        400: "The customer's balance cannot go below 0: it is 3000 and the change is -5000",
        403: 'Customer belongs to another project',
        404: 'Customer not found',
      },
      response: {
        status: 201,
        description: 'The adjustment, with the balance it left',
        schema: BalanceTransactionSchema,
      },
      responseExample: balanceAdjustmentExample,
      async handle({ auth: { apiKey }, params, body, req }) {
        const { transaction } = await billing.createBalanceAdjustment({
          scope: scopeOf(apiKey),
          customerId: params.customer_id,
          amount: toMinorUnits(body.amount),
          currency: body.currency,
          description: body.description,
          idempotencyKey: req.idempotencyKey,
        });
        return toBalanceTransaction(required(transaction, 'transaction'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:customer_id/balance-adjustments',
      operationId: 'listBalanceAdjustments',
      summary: "A customer's balance history, newest first",
      description:
        'Every change of the balance with the balance it left: adjustments made here (`ADJUSTMENT`), the credit ' +
        'of a downgrade (`PRORATION_CREDIT`), credit used by invoices (`APPLIED_TO_INVOICE`, with its ' +
        '`invoice_id`) and credit notes to the balance (`CREDIT_NOTE`, with the invoice credited). Pages of `limit` (default 20, at most 100); the next page starts after the last id of ' +
        'this one (`starting_after`).',
      auth: 'apiKey',
      params: CustomerIdParams,
      query: ListBalanceTransactionsQuery,
      errors: {
        400: 'starting_after does not name an item of this list',
        403: 'Customer belongs to another project',
        404: 'Customer not found',
      },
      response: {
        status: 200,
        description: 'One page of balance changes',
        schema: z.array(BalanceTransactionSchema),
      },
      responseExample: [appliedToInvoiceExample, balanceAdjustmentExample],
      async handle({ auth: { apiKey }, params, query }) {
        const { transactions } = await billing.listBalanceTransactions({
          scope: scopeOf(apiKey),
          customerId: params.customer_id,
          page: pageOf(query),
        });
        return transactions.map(toBalanceTransaction);
      },
    }),
  ],
};
