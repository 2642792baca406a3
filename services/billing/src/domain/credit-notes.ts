import { DomainError, shareOfAmount, toMajorUnits, type FieldViolation } from '@billing/platform';

/**
 * Credit notes (docs/api-behaviour.md §23): how much of a PAID invoice a note may credit, the tax
 * it carries back, and its number. Pure: the caller reads the invoice and its earlier notes under
 * the invoice's lock and records what these rules decide.
 */

export const CREDIT_NOTE_REASONS = ['DUPLICATE', 'FRAUDULENT', 'ORDER_CHANGE', 'PRODUCT_UNSATISFACTORY'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];
export const CREDIT_NOTE_DESTINATIONS = ['CARD', 'BALANCE'] as const;
export type CreditNoteDestination = (typeof CREDIT_NOTE_DESTINATIONS)[number];
export const MAX_CREDIT_NOTE_MEMO_LENGTH = 500;

/** One tax rate's amount on an invoice, or on a credit note of it (minor units). */
export interface RateAmount {
  taxRateId: string;
  amount: number;
}

/** What the rules read of the invoice a note credits (minor units). */
export interface CreditedInvoice {
  number: string;
  status: string;
  /** What the refusals name amounts in. */
  currency: string;
  /** The invoice total (tax included): what all its notes together may credit at most. */
  amount: number;
  amountPaid: number;
  /** Refunded to the card so far, by notes to CARD and by the platform's own refunds. */
  amountRefunded: number;
  /** The invoice's tax, per rate. */
  taxes: RateAmount[];
}

/** The notes the invoice has already, summed. */
export interface EarlierCreditNotes {
  count: number;
  /** Their amounts together. */
  amount: number;
  /** Their tax together, per rate (a rate they carried nothing of may be absent). */
  taxes: RateAmount[];
}

/**
 * Why a note of `amount` to `refundTo` cannot be issued on `invoice`, or null when it can: only a
 * PAID invoice; all notes together never above the invoice's amount; those to the card never above
 * what was paid less what went back already. The reason says how much remains, so the caller can
 * ask again for what is possible.
 */
export function creditNoteRefusal(
  invoice: CreditedInvoice,
  earlier: EarlierCreditNotes,
  amount: number,
  refundTo: CreditNoteDestination,
): string | null {
  if (invoice.status !== 'PAID') return `Only a PAID invoice can be credited; this one is ${invoice.status}`;
  // Amounts in the API's major units, as the merchant sends them (docs/api-behaviour.md §1).
  const inMajorUnits = (minor: number) => `${toMajorUnits(minor).toFixed(2)} ${invoice.currency}`;
  const creditable = invoice.amount - earlier.amount;
  if (amount > creditable) {
    return `The credit notes of an invoice never sum above its amount: ${inMajorUnits(creditable)} remain to credit`;
  }
  if (refundTo === 'CARD') {
    const refundable = invoice.amountPaid - invoice.amountRefunded;
    if (amount > refundable) {
      return `A credit note to the card never exceeds what was paid less what was refunded: ${inMajorUnits(refundable)} remain`;
    }
  }
  return null;
}

/**
 * The tax a note of `amount` carries back, per rate of the invoice: that rate's invoice tax x
 * amount / invoice amount, rounded once (half away from zero). The note that brings the credited
 * total to the invoice's amount takes exactly what remains of each rate's tax, so the notes of an
 * invoice together never carry back more, or less, tax than it bore.
 */
export function creditNoteTaxes(invoice: CreditedInvoice, earlier: EarlierCreditNotes, amount: number): RateAmount[] {
  if (earlier.amount + amount !== invoice.amount) return taxSharesOf(invoice, amount);
  return invoice.taxes.map(({ taxRateId, amount: invoiceTax }) => {
    const carried = earlier.taxes.find((t) => t.taxRateId === taxRateId)?.amount ?? 0;
    return { taxRateId, amount: invoiceTax - carried };
  });
}

/**
 * Each rate's share of `amount`: that rate's invoice tax x amount / invoice amount, rounded once.
 * What a note carries, unless it closes the invoice; and what the note of a second payment of the
 * invoice carries (docs/api-behaviour.md §23), which credits that payment, not the invoice, so it
 * neither counts the invoice's own notes nor is counted by them.
 */
export function taxSharesOf(invoice: Pick<CreditedInvoice, 'amount' | 'taxes'>, amount: number): RateAmount[] {
  return invoice.taxes.map(({ taxRateId, amount: invoiceTax }) => ({
    taxRateId,
    amount: invoice.amount === 0 ? 0 : shareOfAmount(invoiceTax, amount, invoice.amount),
  }));
}

/** A note as asked for (minor units), checked: what `validateCreditNoteRequest` lets through. */
export interface CreditNoteRequest {
  amount: number;
  reason: CreditNoteReason;
  refundTo: CreditNoteDestination;
  memo: string | null;
}

/** The violation of a body field that must be one of `values`, or none. */
function enumViolation(field: string, values: readonly string[], input: string): FieldViolation[] {
  if (values.includes(input)) return [];
  const msg = `Input should be ${values.map((v) => `'${v}'`).join(', ')}`;
  return [{ loc: ['body', field], msg, type: 'enum', input }];
}

/**
 * A note's request as billing accepts it from any gRPC caller (the gateway checks the shape
 * first): an amount above 0 (a safe integer of minor units), a known reason and destination, a
 * memo of at most 500 characters (blank = none). Anything else is a 422 naming each field.
 */
export function validateCreditNoteRequest(input: {
  amount: number;
  reason: string;
  refundTo: string;
  memo?: string;
}): CreditNoteRequest {
  const memo = input.memo?.trim() || null;
  const violations: FieldViolation[] = [
    ...(Number.isSafeInteger(input.amount) && input.amount > 0
      ? []
      : [
          { loc: ['body', 'amount'], msg: 'Input should be greater than 0', type: 'greater_than', input: input.amount },
        ]),
    ...enumViolation('reason', CREDIT_NOTE_REASONS, input.reason),
    ...enumViolation('refund_to', CREDIT_NOTE_DESTINATIONS, input.refundTo),
    ...(memo && memo.length > MAX_CREDIT_NOTE_MEMO_LENGTH
      ? [
          {
            loc: ['body', 'memo'],
            msg: `String should have at most ${MAX_CREDIT_NOTE_MEMO_LENGTH} characters`,
            type: 'string_too_long',
            ctx: { max_length: MAX_CREDIT_NOTE_MEMO_LENGTH },
          },
        ]
      : []),
  ];
  if (violations.length) throw DomainError.invalid(violations);
  return {
    amount: input.amount,
    reason: input.reason as CreditNoteReason,
    refundTo: input.refundTo as CreditNoteDestination,
    memo,
  };
}

/** `<invoice number>-CN<n>`, n counting from 1 per invoice. */
export const creditNoteNumber = (invoiceNumber: string, earlierCount: number) =>
  `${invoiceNumber}-CN${earlierCount + 1}`;
