import { shareOfAmount } from '@billing/platform';

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
  const creditable = invoice.amount - earlier.amount;
  if (amount > creditable) {
    return `The credit notes of an invoice never sum above its amount: ${creditable} (minor units) remain to credit`;
  }
  if (refundTo === 'CARD') {
    const refundable = invoice.amountPaid - invoice.amountRefunded;
    if (amount > refundable) {
      return `A credit note to the card never exceeds what was paid less what was refunded: ${refundable} (minor units) remain`;
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
  const closesTheInvoice = earlier.amount + amount === invoice.amount;
  return invoice.taxes.map(({ taxRateId, amount: invoiceTax }) => {
    if (closesTheInvoice) {
      const carried = earlier.taxes.find((t) => t.taxRateId === taxRateId)?.amount ?? 0;
      return { taxRateId, amount: invoiceTax - carried };
    }
    return { taxRateId, amount: invoice.amount === 0 ? 0 : shareOfAmount(invoiceTax, amount, invoice.amount) };
  });
}

/** `<invoice number>-CN<n>`, n counting from 1 per invoice. */
export const creditNoteNumber = (invoiceNumber: string, earlierCount: number) =>
  `${invoiceNumber}-CN${earlierCount + 1}`;
