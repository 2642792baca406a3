import type { Currency } from '@billing/platform';

/**
 * What an invoice or credit-note document shows (docs/api-behaviour.md §22), as plain data:
 * every figure is the invoice's own, as billing computed it (§19, §20), so a document formats
 * money and never computes it again, and shows the figures the API shows. Amounts are integer
 * minor units; quantities and percentages exact decimal text. Dates are ISO 8601 timestamps (§1).
 */

/** The languages a customer's documents come in (`preferred_locale`, docs/api-behaviour.md §22). */
export const DOCUMENT_LOCALES = ['en', 'fr'] as const;
export type DocumentLocale = (typeof DOCUMENT_LOCALES)[number];

/** Invoice statuses (docs/api-behaviour.md §11). */
export const INVOICE_STATUSES = ['DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Why a credit note was issued, and where its money went (docs/api-behaviour.md §22). */
export const CREDIT_NOTE_REASONS = ['DUPLICATE', 'FRAUDULENT', 'ORDER_CHANGE', 'PRODUCT_UNSATISFACTORY'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];
export const CREDIT_NOTE_REFUND_TARGETS = ['CARD', 'BALANCE'] as const;
export type CreditNoteRefundTarget = (typeof CREDIT_NOTE_REFUND_TARGETS)[number];

/** A merchant's or customer's address (docs/api-behaviour.md §22). */
export interface PostalAddress {
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** The seller as the invoice kept it when it was created (docs/api-behaviour.md §22). */
export interface DocumentSeller {
  /** `legal_name`, else `business_name`. */
  name: string;
  address: PostalAddress | null;
  tax_id: string | null;
}

/** The buyer as the invoice kept it when it was created (docs/api-behaviour.md §22). */
export interface DocumentBuyer {
  name: string | null;
  email: string;
  address: PostalAddress | null;
  tax_id: string | null;
}

export interface InvoiceDocumentLine {
  description: string;
  /** Exact decimal text ("1", "2.5"). */
  quantity: string;
  unit_amount: number;
  amount: number;
}

/** One entry of the invoice's `total_tax_amounts` (docs/api-behaviour.md §22). */
export interface DocumentTax {
  display_name: string;
  /** Exact decimal text, at most 4 decimals ("7.5"). */
  percentage: string;
  inclusive: boolean;
  amount: number;
}

/**
 * A credit note of the invoice; every refund has one (docs/api-behaviour.md §22), so this lists
 * refunds too.
 */
export interface DocumentCreditNoteEntry {
  number: string;
  amount: number;
}

export interface InvoiceDocument {
  number: string;
  status: InvoiceStatus;
  locale: DocumentLocale;
  currency: Currency;
  /** The invoice's `created_at`. */
  issued_at: string;
  period: { start: string; end: string } | null;
  seller: DocumentSeller;
  buyer: DocumentBuyer;
  /**
   * The invoice's lines as billing lists them (a DISCOUNT line is negative, docs/api-behaviour.md
   * §19).
   */
  lines: InvoiceDocumentLine[];
  subtotal: number;
  discount: number;
  taxes: DocumentTax[];
  /** The invoice's `amount` (docs/api-behaviour.md §22). */
  total: number;
  credit_applied: number;
  amount_paid: number;
  amount_due: number;
  /** What went back to the card: the invoice's `amount_refunded`. */
  amount_refunded: number;
  credit_notes: DocumentCreditNoteEntry[];
  /** "Reverse charge" on a reverse-charge invoice, else null (docs/api-behaviour.md §22). */
  tax_note: string | null;
  /** The merchant's `invoice_footer` (docs/api-behaviour.md §22). */
  footer: string | null;
}

export interface CreditNoteDocument {
  /** `<invoice number>-CN<n>` (docs/api-behaviour.md §22). */
  number: string;
  invoice_number: string;
  locale: DocumentLocale;
  currency: Currency;
  /** The credit note's `created_at`. */
  issued_at: string;
  seller: DocumentSeller;
  buyer: DocumentBuyer;
  amount: number;
  /** The credit note's tax, per rate of the invoice. */
  taxes: DocumentTax[];
  reason: CreditNoteReason;
  refund_to: CreditNoteRefundTarget;
  memo: string | null;
  footer: string | null;
}
