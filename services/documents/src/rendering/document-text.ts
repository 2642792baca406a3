import { formatMoney } from '@billing/platform';
import { formatCountry, formatDate, formatPercentage, formatPeriod, formatQuantity } from '../domain/display-format';
import type {
  CreditNoteDocument,
  DocumentBuyer,
  DocumentLocale,
  DocumentSeller,
  DocumentTax,
  InvoiceDocument,
  PostalAddress,
} from '../domain/invoice-document';
import { labelsFor, type DocumentLabels } from './labels';

/**
 * Everything a document shows, as the strings it shows, in the order it shows them: one template
 * (docs/api-behaviour.md §22) that a layout places on a page. The PDF lays it
 * out (render-invoice-pdf.ts), and the hosted invoice page will show the same strings, so the two
 * never disagree on a figure or a word.
 */
export interface DocumentText {
  locale: DocumentLocale;
  /** The kind of document: `Invoice`, `Facture`, `Credit note`, `Avoir`. */
  title: string;
  number: string;
  /** Shown large beside the title: an invoice's status. */
  badge: string | null;
  facts: TextRow[];
  parties: { heading: string; lines: string[] }[];
  table: { columns: TableColumn[]; rows: string[][] };
  totals: TotalRow[];
  lists: { heading: string; rows: TextRow[] }[];
  notes: string[];
}

/** What a column holds: a layout gives the text the room left and aligns figures on the right. */
export interface TableColumn {
  label: string;
  kind: 'text' | 'quantity' | 'amount';
}

export interface TextRow {
  label: string;
  value: string;
}

export interface TotalRow extends TextRow {
  /** The row a reader looks for: the total, the amount due. */
  strong: boolean;
}

/** Every string of the document, top to bottom: what a text layer must hold. */
export function documentStrings(text: DocumentText): string[] {
  return [
    `${text.title} ${text.number}`,
    ...(text.badge === null ? [] : [text.badge]),
    ...text.facts.flatMap((row) => [row.label, row.value]),
    ...text.parties.flatMap((party) => [party.heading, ...party.lines]),
    ...text.table.columns.map((column) => column.label),
    ...text.table.rows.flat(),
    ...text.totals.flatMap((row) => [row.label, row.value]),
    ...text.lists.flatMap((list) => [list.heading, ...list.rows.flatMap((row) => [row.label, row.value])]),
    ...text.notes,
  ];
}

export function invoiceText(invoice: InvoiceDocument): DocumentText {
  const { labels, money } = wordsFor(invoice);
  const status = labels.statuses[invoice.status];
  const period = invoice.period && formatPeriod(invoice.period.start, invoice.period.end, invoice.locale);
  const credits = invoice.credit_notes.map((note) => ({ label: note.number, value: money(note.amount) }));
  return {
    ...frame(invoice, labels.invoice, status, [
      ...(period ? [{ label: labels.period, value: period }] : []),
      { label: labels.status, value: status },
    ]),
    table: {
      columns: [
        { label: labels.description, kind: 'text' },
        { label: labels.quantity, kind: 'quantity' },
        { label: labels.unitAmount, kind: 'amount' },
        { label: labels.amount, kind: 'amount' },
      ],
      rows: invoice.lines.map((line) => [
        line.description,
        formatQuantity(line.quantity, invoice.locale),
        money(line.unit_amount),
        money(line.amount),
      ]),
    },
    totals: invoiceTotals(invoice, labels, money),
    lists: credits.length === 0 ? [] : [{ heading: labels.creditNotes, rows: credits }],
    notes: nonEmpty([invoice.tax_note, invoice.footer]),
  };
}

/** Subtotal, discount, each tax, total, credit applied, paid, due and refunded: the invoice's own figures. */
function invoiceTotals(invoice: InvoiceDocument, labels: DocumentLabels, money: Money): TotalRow[] {
  const row = (label: string, minor: number, strong = false): TotalRow => ({ label, value: money(minor), strong });
  return [
    row(labels.subtotal, invoice.subtotal),
    ...(invoice.discount === 0 ? [] : [row(labels.discount, -invoice.discount)]),
    ...invoice.taxes.map((tax) => row(taxLabel(tax, labels, invoice.locale), tax.amount)),
    row(labels.total, invoice.total, true),
    ...(invoice.credit_applied === 0 ? [] : [row(labels.creditApplied, -invoice.credit_applied)]),
    row(labels.amountPaid, invoice.amount_paid),
    row(labels.amountDue, invoice.amount_due, true),
    ...(invoice.amount_refunded === 0 ? [] : [row(labels.amountRefunded, invoice.amount_refunded)]),
  ];
}

export function creditNoteText(note: CreditNoteDocument): DocumentText {
  const { labels, money } = wordsFor(note);
  return {
    ...frame(note, labels.creditNote, null, [
      { label: labels.invoiceNumber, value: note.invoice_number },
      { label: labels.reason, value: labels.reasons[note.reason] },
      { label: labels.refundTo, value: labels.refundTargets[note.refund_to] },
    ]),
    table: {
      columns: [
        { label: labels.description, kind: 'text' },
        { label: labels.amount, kind: 'amount' },
      ],
      rows: [[`${labels.creditAgainst} ${note.invoice_number}`, money(note.amount)]],
    },
    totals: [
      // A credit note's tax is the share of the invoice's tax inside its amount
      // (docs/api-behaviour.md §22).
      ...note.taxes.map((tax) => ({
        label: `${labels.ofWhich} ${taxLabel(tax, labels, note.locale)}`,
        value: money(tax.amount),
        strong: false,
      })),
      { label: labels.totalCredited, value: money(note.amount), strong: true },
    ],
    lists: [],
    notes: nonEmpty([note.memo === null ? null : `${labels.memo}: ${note.memo}`, note.footer]),
  };
}

type Money = (minor: number) => string;

/** A document's words and its amounts' format, in its customer's locale and its currency. */
function wordsFor(document: InvoiceDocument | CreditNoteDocument): { labels: DocumentLabels; money: Money } {
  const { locale, currency } = document;
  return { labels: labelsFor(locale), money: (minor) => formatMoney(minor, currency, locale) };
}

/**
 * What every document shows around its own facts: its kind and number, the number and the issue
 * date first among the facts and the currency last, then the seller and the buyer.
 */
function frame(
  document: InvoiceDocument | CreditNoteDocument,
  title: string,
  badge: string | null,
  facts: TextRow[],
): Pick<DocumentText, 'locale' | 'title' | 'number' | 'badge' | 'facts' | 'parties'> {
  const { locale } = document;
  const labels = labelsFor(locale);
  return {
    locale,
    title,
    number: document.number,
    badge,
    facts: [
      { label: labels.number, value: document.number },
      { label: labels.issueDate, value: formatDate(document.issued_at, locale) },
      ...facts,
      { label: labels.currency, value: document.currency },
    ],
    parties: parties(document.seller, document.buyer, labels, locale),
  };
}

/**
 * `VAT (7.5%)`, `VAT (7.5%, incl.)`: the name, the percentage and "incl." when inclusive
 * (docs/api-behaviour.md §22).
 */
function taxLabel(tax: DocumentTax, labels: DocumentLabels, locale: DocumentLocale): string {
  const percentage = formatPercentage(tax.percentage, locale);
  return `${tax.display_name} (${tax.inclusive ? `${percentage}, ${labels.inclusive}` : percentage})`;
}

function parties(
  seller: DocumentSeller,
  buyer: DocumentBuyer,
  labels: DocumentLabels,
  locale: DocumentLocale,
): DocumentText['parties'] {
  const taxId = (id: string | null) => (id === null ? [] : [`${labels.taxId}: ${id}`]);
  return [
    { heading: labels.from, lines: [seller.name, ...addressLines(seller.address, locale), ...taxId(seller.tax_id)] },
    {
      heading: labels.billTo,
      lines: [...nonEmpty([buyer.name]), buyer.email, ...addressLines(buyer.address, locale), ...taxId(buyer.tax_id)],
    },
  ];
}

function addressLines(address: PostalAddress | null, locale: DocumentLocale): string[] {
  if (address === null) return [];
  const cityLine = nonEmpty([address.city, address.state, address.postal_code]).join(', ');
  return nonEmpty([address.line1, address.line2, cityLine, formatCountry(address.country, locale)]);
}

function nonEmpty(values: (string | null)[]): string[] {
  return values.filter((value): value is string => value !== null && value.trim() !== '');
}
