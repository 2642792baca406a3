import { z } from 'zod';
import { CURRENCIES, taxAmountView, toMajorUnits } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, pageQuery, timestamp } from '../common.schemas';

export const INVOICE_STATUSES = ['DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE'] as const;
export const INVOICE_LINE_TYPES = ['SUBSCRIPTION', 'USAGE', 'FEE', 'PRORATION', 'DISCOUNT'] as const;
type Currency = (typeof CURRENCIES)[number];

export const InvoiceLineSchema = z
  .object({
    type: z.enum(INVOICE_LINE_TYPES).meta({
      description: 'PRORATION: the unused (negative) or remaining time of a plan change; DISCOUNT (negative): a coupon',
    }),
    description: z.string(),
    quantity: z.string().meta({ description: 'Exact decimal text' }),
    unit_amount: z.number().meta({ description: 'Major currency unit' }),
    amount: z.number().meta({ description: 'Major currency unit' }),
    period_start: timestamp,
    period_end: timestamp,
    tax_rates: z.array(z.uuid()).meta({ description: "The tax rates that applied to the line: its invoice's" }),
  })
  .meta({ id: 'InvoiceLine' });

/** One rate's tax on an invoice, the rate as it was when the invoice was made (docs/api-behaviour.md §21). */
export const TaxAmountSchema = z
  .object({
    tax_rate_id: z.uuid(),
    display_name: z.string(),
    percentage: z.number(),
    inclusive: z.boolean(),
    taxable_amount: z.number().meta({
      description: 'Major currency unit: the net the rate is computed on (after the discount, less inclusive taxes)',
    }),
    amount: z.number().meta({ description: 'Major currency unit; 0 for an exempt or reverse-charge customer' }),
  })
  .meta({ id: 'InvoiceTaxAmount' });

/** The tax fields every invoice (and a plan change's preview of one) carries (docs/api-behaviour.md §21). */
export const invoiceTaxFields = {
  tax: z.number().meta({ description: 'The sum of the per-rate tax amounts, each rounded once' }),
  total_excluding_tax: z.number().meta({ description: 'subtotal - discount - the inclusive taxes' }),
  total_tax_amounts: z.array(TaxAmountSchema).meta({ description: 'One entry per tax rate, in order' }),
  tax_note: z.string().nullable().meta({ description: '"Reverse charge" for a reverse-charge customer, else null' }),
};

export const toTaxAmount = (t: billingV1.InvoiceTaxAmount): z.input<typeof TaxAmountSchema> => taxAmountView(t);

/** An invoice with its lines; money in major units. */
export const InvoiceSchema = z
  .object({
    id: z.uuid(),
    number: z.string().meta({ description: 'Per project and mode, e.g. INV-000042' }),
    subscription_id: z.uuid(),
    customer_id: z.uuid(),
    customer_email: z.string(),
    status: z.enum(INVOICE_STATUSES),
    currency: z.enum(CURRENCIES),
    subtotal: z.number().meta({ description: 'The sum of the lines before the discount' }),
    discount: z.number().meta({ description: "The DISCOUNT line's amount as a positive number (0 when none)" }),
    ...invoiceTaxFields,
    amount: z.number().meta({
      description: 'The invoice total: subtotal - discount + the exclusive taxes (= total_excluding_tax + tax)',
    }),
    credit_applied: z.number().meta({ description: "The customer's balance this invoice used" }),
    amount_due: z.number().meta({
      description: 'amount - credit_applied: what the card is charged; 0 means PAID without a charge',
    }),
    amount_paid: z.number().meta({ description: 'What the card paid (credit is not part of it)' }),
    amount_refunded: z.number(),
    amount_credited: z.number().meta({ description: 'The sum of its credit notes (to the card and to the balance)' }),
    credit_notes: z
      .array(z.object({ id: z.uuid(), number: z.string(), amount: z.number() }).meta({ id: 'InvoiceCreditNote' }))
      .meta({ description: 'Its credit notes, oldest first; GET /credit-notes/{id} has each in full' }),
    lines: z.array(InvoiceLineSchema),
    period_start: timestamp,
    period_end: timestamp,
    due_date: timestamp,
    paid_at: timestamp.nullable(),
    attempt_count: z.number().int(),
    next_payment_attempt: timestamp.nullable(),
    hosted_invoice_url: z.url().meta({
      description:
        'The invoice page for the customer (with "Pay" while it is OPEN and owes, and "Download PDF"): no API key ' +
        'needed, an unguessable token, valid as long as the invoice exists',
    }),
    invoice_pdf: z.url().meta({ description: 'The PDF of the invoice, through the same kind of link' }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Invoice' });

export const ListInvoicesQuery = z.object({
  status: z.enum(INVOICE_STATUSES).optional(),
  customer_id: z.string().optional(),
  subscription_id: z.string().optional(),
  ...pageQuery,
});

export const InvoiceIdParams = z.object({ invoice_id: idParam('Invoice') });

export const toInvoiceLine = (l: billingV1.InvoiceLine): z.input<typeof InvoiceLineSchema> => ({
  type: l.type as (typeof INVOICE_LINE_TYPES)[number],
  description: l.description,
  quantity: l.quantity,
  unit_amount: toMajorUnits(l.unitAmount),
  amount: toMajorUnits(l.amount),
  period_start: iso(l.periodStart, 'period_start'),
  period_end: iso(l.periodEnd, 'period_end'),
  tax_rates: l.taxRateIds,
});

export const toInvoice = (i: billingV1.Invoice): z.input<typeof InvoiceSchema> => ({
  id: i.id,
  number: i.number,
  subscription_id: i.subscriptionId,
  customer_id: i.customerId,
  customer_email: i.customerEmail,
  status: i.status as (typeof INVOICE_STATUSES)[number],
  currency: i.currency as Currency,
  subtotal: toMajorUnits(i.subtotal),
  discount: toMajorUnits(i.discount),
  tax: toMajorUnits(i.tax),
  total_excluding_tax: toMajorUnits(i.totalExcludingTax),
  total_tax_amounts: i.totalTaxAmounts.map(toTaxAmount),
  tax_note: i.taxNote ?? null,
  amount: toMajorUnits(i.amount),
  credit_applied: toMajorUnits(i.creditApplied),
  amount_due: toMajorUnits(i.amountDue),
  amount_paid: toMajorUnits(i.amountPaid),
  amount_refunded: toMajorUnits(i.amountRefunded),
  amount_credited: toMajorUnits(i.amountCredited),
  credit_notes: i.creditNotes.map((n) => ({ id: n.id, number: n.number, amount: toMajorUnits(n.amount) })),
  lines: i.lines.map(toInvoiceLine),
  period_start: iso(i.periodStart, 'period_start'),
  period_end: iso(i.periodEnd, 'period_end'),
  due_date: iso(i.dueDate, 'due_date'),
  paid_at: i.paidAt ? i.paidAt.toISOString() : null,
  attempt_count: i.attemptCount,
  next_payment_attempt: i.nextPaymentAttempt ? i.nextPaymentAttempt.toISOString() : null,
  hosted_invoice_url: i.hostedInvoiceUrl,
  invoice_pdf: i.invoicePdf,
  livemode: i.livemode,
  created_at: iso(i.createdAt),
});

/** The first invoice of the example subscription, paid by its checkout. */
export const invoiceExample = {
  id: EXAMPLE.invoiceId,
  number: 'INV-000001',
  subscription_id: EXAMPLE.subscriptionId,
  customer_id: EXAMPLE.customerId,
  customer_email: EXAMPLE.customerEmail,
  status: 'PAID',
  currency: 'NGN',
  subtotal: 15000,
  discount: 0,
  tax: 0,
  total_excluding_tax: 15000,
  total_tax_amounts: [],
  tax_note: null,
  amount: 15000,
  credit_applied: 0,
  amount_due: 15000,
  amount_paid: 15000,
  amount_refunded: 0,
  amount_credited: 0,
  credit_notes: [],
  lines: [
    {
      type: 'SUBSCRIPTION',
      description: 'Pro',
      quantity: '1',
      unit_amount: 15000,
      amount: 15000,
      period_start: EXAMPLE.createdAt,
      period_end: EXAMPLE.periodEnd,
      tax_rates: [],
    },
  ],
  period_start: EXAMPLE.createdAt,
  period_end: EXAMPLE.periodEnd,
  due_date: EXAMPLE.createdAt,
  paid_at: EXAMPLE.createdAt,
  attempt_count: 1,
  next_payment_attempt: null,
  hosted_invoice_url: `${EXAMPLE.publicUrl}/i/ff700b66b6ab402c8a7f115a7ebf7ff1${EXAMPLE.linkMac}`,
  invoice_pdf: `${EXAMPLE.publicUrl}/i/ff700b66b6ab402c8a7f115a7ebf7ff1${EXAMPLE.linkMac}/pdf`,
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof InvoiceSchema>;

/**
 * A renewal invoice whose charge failed: dunning retries it at next_payment_attempt. The
 * subscription was given the example VAT rate (7.5%, exclusive) after its checkout.
 */
export const openInvoiceExample = {
  ...invoiceExample,
  number: 'INV-000002',
  status: 'OPEN',
  tax: 1125,
  total_tax_amounts: [
    {
      tax_rate_id: EXAMPLE.taxRateId,
      display_name: 'VAT',
      percentage: 7.5,
      inclusive: false,
      taxable_amount: 15000,
      amount: 1125,
    },
  ],
  amount: 16125,
  amount_due: 16125,
  amount_paid: 0,
  lines: [
    {
      ...invoiceExample.lines[0],
      period_start: EXAMPLE.periodEnd,
      period_end: '2026-05-02T09:15:00.000Z',
      tax_rates: [EXAMPLE.taxRateId],
    },
  ],
  period_start: EXAMPLE.periodEnd,
  period_end: '2026-05-02T09:15:00.000Z',
  due_date: EXAMPLE.periodEnd,
  paid_at: null,
  next_payment_attempt: '2026-04-05T09:15:00.000Z',
  created_at: EXAMPLE.periodEnd,
} satisfies z.input<typeof InvoiceSchema>;
