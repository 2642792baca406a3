import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CreateCustomerBody,
  CustomerDetailSchema,
  CustomerIdParams,
  CustomerSchema,
  ListCustomersQuery,
  toCustomer,
  toCustomerDetail,
  UpdateCustomerBody,
} from './customers.schemas';

export const customersResource: Resource = {
  tag: 'Customers',
  prefixes: ['/customers'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Create a customer',
      description:
        'Also creates the customer at the payment provider (`gateway_customer_id`). ' +
        'E-mails are unique per project and mode, whatever their case: a duplicate is a 409. ' +
        'A provider that cannot be reached is a 503 and nothing is created.',
      auth: 'apiKey',
      body: CreateCustomerBody,
      errors: [400, 409],
      response: { status: 201, description: 'The customer', schema: CustomerSchema },
      async handle({ auth: { apiKey }, body }) {
        const { customer } = await billing.createCustomer({
          scope: scopeOf(apiKey),
          email: body.email,
          name: body.name,
          metadata: body.metadata,
        });
        return toCustomer(required(customer, 'customer'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: 'List customers, newest first',
      auth: 'apiKey',
      query: ListCustomersQuery,
      errors: [400],
      response: { status: 200, description: 'One page of customers', schema: z.array(CustomerSchema) },
      async handle({ auth: { apiKey }, query }) {
        const { customers } = await billing.listCustomers({
          scope: scopeOf(apiKey),
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
          email: query.email,
        });
        return customers.map(toCustomer);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:customer_id',
      summary: 'Get a customer with its subscriptions and invoices',
      auth: 'apiKey',
      params: CustomerIdParams,
      errors: [403, 404],
      response: {
        status: 200,
        description: 'The customer, its subscriptions and invoices',
        schema: CustomerDetailSchema,
      },
      async handle({ auth: { apiKey }, params }) {
        return toCustomerDetail(await billing.getCustomer({ scope: scopeOf(apiKey), customerId: params.customer_id }));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:customer_id',
      summary: "Update a customer's name or metadata",
      auth: 'apiKey',
      params: CustomerIdParams,
      body: UpdateCustomerBody,
      errors: [403, 404],
      response: { status: 200, description: 'The updated customer', schema: CustomerSchema },
      async handle({ auth: { apiKey }, params, body }) {
        const { customer } = await billing.updateCustomer({
          scope: scopeOf(apiKey),
          customerId: params.customer_id,
          name: body.name,
          metadata: body.metadata,
        });
        return toCustomer(required(customer, 'customer'));
      },
    }),
  ],
};
