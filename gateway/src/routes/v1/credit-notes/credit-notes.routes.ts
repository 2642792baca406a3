import { z } from 'zod';
import { defineRoute, type ApiTag, type Resource } from '../../../http/route';
import { toMinorUnits } from '@billing/platform';
import { pageOf, required, scopeOf } from '../common.schemas';
import { InvoiceIdParams } from '../invoices/invoices.schemas';
import {
  balanceCreditNoteExample,
  CreateCreditNoteBody,
  creditNoteExample,
  CreditNoteIdParams,
  CreditNotePreviewSchema,
  CreditNoteSchema,
  ListCreditNotesQuery,
  toCreditNote,
  toCreditNotePreview,
} from './credit-notes.schemas';

const creditNotesTag: ApiTag = {
  name: 'Credit notes',
  description:
    'What a PAID invoice gives back, as a numbered document: refunded to the card that paid it, or credited to ' +
    "the customer's balance. Refunds the platform makes itself (a cancellation policy's) have their note too. " +
    'An invoice shows its notes (`credit_notes`) and their sum (`amount_credited`). Amounts are in major currency units.',
};

/** The note a request asks for, as billing takes it (issue and preview alike). */
const requestedNote = (
  apiKey: Parameters<typeof scopeOf>[0],
  invoiceId: string,
  body: z.output<typeof CreateCreditNoteBody>,
) => ({
  scope: scopeOf(apiKey),
  invoiceId,
  amount: toMinorUnits(body.amount),
  reason: body.reason,
  refundTo: body.refund_to,
  memo: body.memo,
});

const bodyExample = {
  amount: 5000,
  reason: 'ORDER_CHANGE',
  refund_to: 'CARD',
  memo: 'One seat fewer from March',
} as const;

const INVOICE_NOT_FOUND = { 403: 'Invoice belongs to another project', 404: 'Invoice not found' };

const ISSUE_RULES =
  'Only a PAID invoice (else 400). All notes of an invoice together never exceed its `amount`; notes to CARD never ' +
  'exceed what the card paid less what was already refunded (a 400 says how much remains). A note to BALANCE is in ' +
  "the invoice's currency, so a balance in another currency refuses it (400). `tax` is the note's share of each " +
  "tax rate of the invoice; an untaxed invoice's notes carry none.";

/** Credit notes of an invoice: /invoices/{id}/credit-notes... */
export const invoiceCreditNotesResource: Resource = {
  tag: creditNotesTag,
  prefixes: ['/invoices'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/:invoice_id/credit-notes',
      operationId: 'createCreditNote',
      summary: 'Issue a credit note of a paid invoice',
      description:
        `${ISSUE_RULES} To CARD, the amount is refunded through the payment provider exactly once and counts in ` +
        "the invoice's `amount_refunded`; to BALANCE it is added to the customer's balance (a `CREDIT_NOTE` entry, " +
        'whose id is `balance_transaction_id`), which the next invoices use. Numbered `<invoice number>-CN<n>`. ' +
        'Sends `credit_note.created`. Send an `Idempotency-Key`: a retry after a lost answer returns the first note ' +
        'instead of issuing a second one, and the money moves once.',
      auth: 'apiKey',
      params: InvoiceIdParams,
      body: CreateCreditNoteBody,
      bodyExample,
      errors: {
        400: 'The credit notes of an invoice never sum above its amount: 10000.00 NGN remain to credit',
        ...INVOICE_NOT_FOUND,
      },
      response: { status: 201, description: 'The credit note', schema: CreditNoteSchema },
      responseExample: creditNoteExample,
      async handle({ auth: { apiKey }, params, body, req }) {
        const { creditNote } = await billing.issueCreditNote({
          ...requestedNote(apiKey, params.invoice_id, body),
          idempotencyKey: req.idempotencyKey,
        });
        return toCreditNote(required(creditNote, 'credit_note'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:invoice_id/credit-notes/preview',
      operationId: 'previewCreditNote',
      summary: 'What a credit note would be, issuing nothing',
      description:
        'The note `POST /invoices/{id}/credit-notes` with the same body would issue now (its amount, its tax per ' +
        `rate), or the same 400 it would answer. Nothing changes. ${ISSUE_RULES}`,
      auth: 'apiKey',
      params: InvoiceIdParams,
      body: CreateCreditNoteBody,
      bodyExample,
      errors: {
        400: 'A credit note to the card never exceeds what was paid less what was refunded: 3000.00 NGN remain',
        ...INVOICE_NOT_FOUND,
      },
      response: { status: 200, description: 'The note as it would be issued', schema: CreditNotePreviewSchema },
      responseExample: { ...bodyExample, currency: 'NGN', tax: [] },
      async handle({ auth: { apiKey }, params, body }) {
        return toCreditNotePreview(await billing.previewCreditNote(requestedNote(apiKey, params.invoice_id, body)));
      },
    }),
  ],
};

/** Credit notes across invoices: /credit-notes... */
export const creditNotesResource: Resource = {
  tag: creditNotesTag,
  prefixes: ['/credit-notes'],
  routes: ({ billing, documents }) => [
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listCreditNotes',
      summary: 'List credit notes, newest first',
      description:
        'Filter by `invoice_id` or `customer_id`. Pages of `limit` (default 20, at most 100); the next page starts ' +
        'after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListCreditNotesQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of credit notes', schema: z.array(CreditNoteSchema) },
      responseExample: [balanceCreditNoteExample, creditNoteExample],
      async handle({ auth: { apiKey }, query }) {
        const { invoice_id: invoiceId, customer_id: customerId } = query;
        const answer = await billing.listCreditNotes({
          scope: scopeOf(apiKey),
          page: pageOf(query),
          invoiceId,
          customerId,
        });
        return answer.creditNotes.map(toCreditNote);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:credit_note_id',
      operationId: 'getCreditNote',
      summary: 'Get a credit note',
      description: 'The note with where its money went: `refund_id` (CARD) or `balance_transaction_id` (BALANCE).',
      auth: 'apiKey',
      params: CreditNoteIdParams,
      errors: { 403: 'Credit note belongs to another project', 404: 'Credit note not found' },
      response: { status: 200, description: 'The credit note', schema: CreditNoteSchema },
      responseExample: creditNoteExample,
      async handle({ auth: { apiKey }, params }) {
        const { creditNote } = await billing.getCreditNote({
          scope: scopeOf(apiKey),
          creditNoteId: params.credit_note_id,
        });
        return toCreditNote(required(creditNote, 'credit_note'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:credit_note_id/pdf',
      operationId: 'getCreditNotePdf',
      summary: "Download a credit note's PDF",
      description:
        'The note as a PDF with a text layer: its number, the invoice it credits, the amount, its tax per rate, the ' +
        'reason and where the money went. `credit_note_pdf` is the same file through a link that needs no API key.',
      auth: 'apiKey',
      params: CreditNoteIdParams,
      errors: { 403: 'Credit note belongs to another project', 404: 'Credit note not found' },
      response: { status: 200, description: 'The PDF, as an attachment named <number>.pdf', file: 'application/pdf' },
      async handle({ auth: { apiKey }, params }) {
        const { pdf } = await documents.renderCreditNotePdf({
          scope: scopeOf(apiKey),
          creditNoteId: params.credit_note_id,
        });
        return required(pdf, 'pdf');
      },
    }),
  ],
};
