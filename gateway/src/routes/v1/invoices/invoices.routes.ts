import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf, pageOf } from '../common.schemas';
import {
  invoiceExample,
  InvoiceIdParams,
  InvoiceSchema,
  ListInvoicesQuery,
  openInvoiceExample,
  toInvoice,
} from './invoices.schemas';

export const invoicesResource: Resource = {
  tag: {
    name: 'Invoices',
    description:
      "A subscription's bill for one period, opened at the period's start and charged to the saved card. A " +
      'failed charge leaves it OPEN and the subscription PAST_DUE while dunning retries it (1, 3 and 5 days ' +
      'after the first failure, by default); an invoice still unpaid after the last retry becomes UNCOLLECTIBLE and its ' +
      'subscription is cancelled. Amounts are in major currency units.',
  },
  prefixes: ['/invoices'],
  routes: ({ billing, documents }) => [
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listInvoices',
      summary: 'List invoices, newest first',
      description:
        'Filter by `status`, `customer_id` or `subscription_id`. Pages of `limit` (default 20, at most 100); the ' +
        'next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListInvoicesQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of invoices', schema: z.array(InvoiceSchema) },
      responseExample: [openInvoiceExample, invoiceExample],
      async handle({ auth: { apiKey }, query }) {
        const { invoices } = await billing.listInvoices({
          scope: scopeOf(apiKey),
          page: pageOf(query),
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
      operationId: 'getInvoice',
      summary: 'Get an invoice with its lines',
      description:
        'Its lines (the subscription price, metered usage, fees), what was paid and refunded, and for an OPEN ' +
        'invoice when dunning charges it next (`next_payment_attempt`).',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: { 403: 'Invoice belongs to another project', 404: 'Invoice not found' },
      response: { status: 200, description: 'The invoice', schema: InvoiceSchema },
      responseExample: invoiceExample,
      async handle({ auth: { apiKey }, params }) {
        const { invoice } = await billing.getInvoice({ scope: scopeOf(apiKey), invoiceId: params.invoice_id });
        return toInvoice(required(invoice, 'invoice'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:invoice_id/pdf',
      operationId: 'getInvoicePdf',
      summary: "Download an invoice's PDF",
      description:
        'The invoice as a PDF with a text layer: the seller and buyer as they were when it was made, each line, ' +
        'the discount, each tax, the total and the status, in the customer\u2019s language. The same state of the ' +
        'invoice gives the same bytes; a payment or a credit note gives a new PDF. `invoice_pdf` is the same file ' +
        'through a link that needs no API key.',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: { 403: 'Invoice belongs to another project', 404: 'Invoice not found' },
      response: { status: 200, description: 'The PDF, as an attachment named <number>.pdf', file: 'application/pdf' },
      async handle({ auth: { apiKey }, params }) {
        const { pdf } = await documents.renderInvoicePdf({ scope: scopeOf(apiKey), invoiceId: params.invoice_id });
        return required(pdf, 'pdf');
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:invoice_id/pay',
      operationId: 'payInvoice',
      summary: 'Charge an OPEN invoice now',
      description:
        "Charges the customer's saved card now, without waiting for dunning. A declined charge is a 402 with the " +
        "provider's words; the invoice stays OPEN and its `attempt_count` grows. Paying the invoice of a PAST_DUE " +
        'subscription makes it ACTIVE again. Send an `Idempotency-Key`: a retry of a request whose answer was ' +
        'lost then returns the first charge\u2019s outcome instead of charging twice (503 while that charge is ' +
        'still in progress at the provider).',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: {
        400: 'Only an OPEN invoice can be paid; this one is PAID',
        402: 'Insufficient Funds',
        403: 'Invoice belongs to another project',
        404: 'Invoice not found',
      },
      response: { status: 200, description: 'The invoice, PAID', schema: InvoiceSchema },
      responseExample: {
        ...openInvoiceExample,
        status: 'PAID',
        amount_paid: 16125,
        paid_at: '2026-04-03T11:02:00.000Z',
        attempt_count: 2,
        next_payment_attempt: null,
      },
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
      operationId: 'voidInvoice',
      summary: 'Void an OPEN invoice',
      description:
        'OPEN -> VOID: nothing more is charged for it, and `invoice.voided` is sent. Voiding the open invoice of ' +
        'a PAST_DUE subscription forgives that period: the subscription returns to ACTIVE and its dunning stops. ' +
        'An invoice that is not OPEN, or one whose payment is in progress, is a 400.',
      auth: 'apiKey',
      params: InvoiceIdParams,
      errors: {
        400: 'Only an OPEN invoice can be voided; this one is PAID',
        403: 'Invoice belongs to another project',
        404: 'Invoice not found',
      },
      response: { status: 200, description: 'The invoice, VOID', schema: InvoiceSchema },
      responseExample: { ...openInvoiceExample, status: 'VOID', next_payment_attempt: null },
      async handle({ auth: { apiKey }, params }) {
        const { invoice } = await billing.voidInvoice({ scope: scopeOf(apiKey), invoiceId: params.invoice_id });
        return toInvoice(required(invoice, 'invoice'));
      },
    }),
  ],
};
