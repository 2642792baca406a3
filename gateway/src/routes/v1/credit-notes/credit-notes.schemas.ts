import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, pageQuery, positiveMoney, timestamp } from '../common.schemas';

/** As services/billing/src/domain/credit-notes.ts has them. */
export const CREDIT_NOTE_REASONS = ['DUPLICATE', 'FRAUDULENT', 'ORDER_CHANGE', 'PRODUCT_UNSATISFACTORY'] as const;
export const CREDIT_NOTE_DESTINATIONS = ['CARD', 'BALANCE'] as const;
const MAX_MEMO_LENGTH = 500;
type Currency = (typeof CURRENCIES)[number];

export const CreateCreditNoteBody = z
  .object({
    amount: positiveMoney.meta({
      description:
        'Major currency unit, above 0, at most 2 decimals. All notes of an invoice together never exceed its amount; ' +
        'those to CARD never exceed what the card paid less what was refunded',
    }),
    reason: z.enum(CREDIT_NOTE_REASONS),
    refund_to: z.enum(CREDIT_NOTE_DESTINATIONS).meta({
      description: "CARD: refunded to the card that paid the invoice; BALANCE: credited to the customer's balance",
    }),
    memo: z.string().trim().max(MAX_MEMO_LENGTH).optional().meta({ description: 'Your note, at most 500 characters' }),
  })
  .meta({ id: 'CreateCreditNoteRequest' });

const CreditNoteTaxSchema = z
  .object({
    tax_rate_id: z.uuid(),
    amount: z.number().meta({ description: "Major currency unit: this rate's share of the note" }),
  })
  .meta({ id: 'CreditNoteTax' });

const tax = z.array(CreditNoteTaxSchema).meta({
  description:
    "Per tax rate of the invoice: the rate's invoice tax x amount / invoice amount, rounded; the note that credits " +
    'the rest of the invoice takes exactly what remains of each rate. Empty for an untaxed invoice',
});

/** A credit note of a PAID invoice (docs/api-behaviour.md §23); money in major units. */
export const CreditNoteSchema = z
  .object({
    id: z.uuid(),
    number: z.string().meta({ description: '<invoice number>-CN<n>, n from 1 per invoice, e.g. INV-000001-CN1' }),
    invoice_id: z.uuid(),
    customer_id: z.uuid(),
    amount: z.number().meta({ description: 'Major currency unit, tax included' }),
    currency: z.enum(CURRENCIES).meta({ description: "The invoice's currency" }),
    tax,
    reason: z.enum(CREDIT_NOTE_REASONS),
    refund_to: z.enum(CREDIT_NOTE_DESTINATIONS),
    refund_id: z.uuid().nullable().meta({
      description: "CARD: the refund that carries the money back (counted in the invoice's amount_refunded)",
    }),
    balance_transaction_id: z.uuid().nullable().meta({
      description: "BALANCE: the CREDIT_NOTE entry of the customer's balance history",
    }),
    memo: z.string().nullable(),
    status: z.enum(['ISSUED']),
    credit_note_pdf: z.url().meta({
      description:
        'The PDF of the note: a link that needs no API key, carrying an unguessable token, valid as long as the note exists',
    }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'CreditNote' });

/** What POST /invoices/{id}/credit-notes with the same body would issue now. */
export const CreditNotePreviewSchema = z
  .object({
    amount: z.number().meta({ description: 'Major currency unit' }),
    currency: z.enum(CURRENCIES),
    tax,
    reason: z.enum(CREDIT_NOTE_REASONS),
    refund_to: z.enum(CREDIT_NOTE_DESTINATIONS),
    memo: z.string().nullable(),
  })
  .meta({ id: 'CreditNotePreview' });

export const ListCreditNotesQuery = z.object({
  invoice_id: z.string().optional(),
  customer_id: z.string().optional(),
  ...pageQuery,
});

export const CreditNoteIdParams = z.object({ credit_note_id: idParam('Credit note') });

/** What a note and its preview both say: its money and terms. */
export const toCreditNotePreview = (
  n: Pick<billingV1.CreditNote, 'amount' | 'currency' | 'tax' | 'reason' | 'refundTo' | 'memo'>,
): z.input<typeof CreditNotePreviewSchema> => ({
  amount: toMajorUnits(n.amount),
  currency: n.currency as Currency,
  tax: n.tax.map((t) => ({ tax_rate_id: t.taxRateId, amount: toMajorUnits(t.amount) })),
  reason: n.reason as (typeof CREDIT_NOTE_REASONS)[number],
  refund_to: n.refundTo as (typeof CREDIT_NOTE_DESTINATIONS)[number],
  memo: n.memo ?? null,
});

export const toCreditNote = (n: billingV1.CreditNote): z.input<typeof CreditNoteSchema> => ({
  id: n.id,
  number: n.number,
  invoice_id: n.invoiceId,
  customer_id: n.customerId,
  ...toCreditNotePreview(n),
  refund_id: n.refundId ?? null,
  balance_transaction_id: n.balanceTransactionId ?? null,
  status: n.status as 'ISSUED',
  credit_note_pdf: n.creditNotePdf,
  livemode: n.livemode,
  created_at: iso(n.createdAt),
});

/** A partial refund of the example invoice to the card: the customer got one seat too many. */
export const creditNoteExample = {
  id: '3e9c1a7d-5b2f-4d8e-9a61-0c4f7b2e8d15',
  number: 'INV-000001-CN1',
  invoice_id: EXAMPLE.invoiceId,
  customer_id: EXAMPLE.customerId,
  amount: 5000,
  currency: 'NGN',
  tax: [],
  reason: 'ORDER_CHANGE',
  refund_to: 'CARD',
  refund_id: '8d4b2f6a-1c7e-4a9d-b350-6e2f8c1a7d94',
  balance_transaction_id: null,
  memo: 'One seat fewer from March',
  status: 'ISSUED',
  credit_note_pdf: `${EXAMPLE.publicUrl}/cn/3e9c1a7d5b2f4d8e9a610c4f7b2e8d15${EXAMPLE.linkMac}/pdf`,
  livemode: false,
  created_at: '2026-03-10T10:30:00.000Z',
} satisfies z.input<typeof CreditNoteSchema>;

/** The same invoice's second note, to the customer's balance. */
export const balanceCreditNoteExample = {
  ...creditNoteExample,
  id: '71f0c3e8-2a6d-4b5c-8e94-d1a7f3b6c209',
  number: 'INV-000001-CN2',
  amount: 1500,
  reason: 'PRODUCT_UNSATISFACTORY',
  refund_to: 'BALANCE',
  refund_id: null,
  balance_transaction_id: 'a2c6e9f1-4b8d-4e3a-9f57-2d1c8b6e4a30',
  memo: 'Service credit for the March outage',
  created_at: '2026-03-20T14:00:00.000Z',
} satisfies z.input<typeof CreditNoteSchema>;
