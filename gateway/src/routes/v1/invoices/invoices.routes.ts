import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import { InvoiceIdParams, InvoiceSchema, ListInvoicesQuery, toInvoice } from './invoices.schemas';

export const invoicesResource: Resource = {
  tag: 'Invoices',
  prefixes: ['/invoices'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'get',
      path: '',
      summary: 'List invoices, newest first',
      auth: 'apiKey',
      query: ListInvoicesQuery,
      errors: [400],
      response: { status: 200, description: 'One page of invoices', schema: z.array(InvoiceSchema) },
      async handle({ auth: { apiKey }, query }) {
        const { invoices } = await billing.listInvoices({
          scope: scopeOf(apiKey),
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
          status: query.status,
          customerId: query.customer_id,
          subscriptionId: query.subscription_id,
        });
        return invoices.map(toInvoice);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:invoice_id',
      summary: 'Get an invoice with its lines',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The invoice', schema: InvoiceSchema },
      async handle({ auth: { apiKey }, params }) {
        const { invoice } = await billing.getInvoice({ scope: scopeOf(apiKey), invoiceId: params.invoice_id });
        return toInvoice(required(invoice, 'invoice'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:invoice_id/pay',
      summary: 'Charge an OPEN invoice now',
      description:
        "Charges the customer's saved card. A failed charge is a 402 with the provider's words; the invoice " +
        'stays OPEN and its attempt_count grows. Paying the invoice of a PAST_DUE subscription makes it ACTIVE. ' +
        'An invoice that is not OPEN is a 400.',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: [400, 402, 403, 404],
      response: { status: 200, description: 'The invoice, PAID', schema: InvoiceSchema },
      async handle({ auth: { apiKey }, params, req }) {
        const { invoice } = await billing.payInvoice({
          scope: scopeOf(apiKey),
          invoiceId: params.invoice_id,
          idempotencyKey: req.idempotencyKey,
        });
        return toInvoice(required(invoice, 'invoice'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:invoice_id/void',
      summary: 'Void an OPEN invoice',
      description:
        'OPEN -> VOID. Voiding the open invoice of a PAST_DUE subscription forgives that period: the ' +
        'subscription returns to ACTIVE and its dunning stops. An invoice that is not OPEN is a 400.',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The invoice, VOID', schema: InvoiceSchema },
      async handle({ auth: { apiKey }, params }) {
        const { invoice } = await billing.voidInvoice({ scope: scopeOf(apiKey), invoiceId: params.invoice_id });
        return toInvoice(required(invoice, 'invoice'));
      },
    }),
  ],
};
