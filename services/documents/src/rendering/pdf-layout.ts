import PDFDocument from 'pdfkit';
import type { DocumentText, TableColumn, TextRow, TotalRow } from './document-text';
import type { Font } from 'fontkit';
import { documentFonts } from './fonts';

/** What a PDF says about itself besides its pages. */
export interface PdfMetadata {
  /** The document's own date (an invoice's `created_at`): never the time of the render. */
  createdAt: Date;
  author: string;
}

const PAGE = { size: 'A4', margin: 50 } as const;
const SIZE = { title: 18, badge: 13, heading: 9, body: 9, note: 8 } as const;
const GREY = '#555555';
const RULE = '#999999';
const GAP = 14;
/** The text column takes what the figures leave. */
const COLUMN_WIDTH: Record<TableColumn['kind'], number | '*'> = { text: '*', quantity: 50, amount: 95 };
/** The totals block sits at the right: a label column, then the amounts. */
const TOTALS = { labelWidth: 210, valueWidth: 100 } as const;

/**
 * Lays a document's text out on A4 pages with PDFKit (docs/decisions.md, "Invoice PDFs with
 * PDFKit"), every string as real text in the embedded font, so the text layer holds all that the
 * page shows (docs/api-behaviour.md §22). The same text and metadata give the same bytes: the
 * creation date is the document's, and PDFKit derives the file identifier from the metadata (no
 * clock, no random id), which is what lets a cached PDF stand for a fresh render.
 */
export function renderPdf(text: DocumentText, metadata: PdfMetadata): Promise<Buffer> {
  const doc = new PDFDocument({
    size: PAGE.size,
    margin: PAGE.margin,
    lang: text.locale,
    displayTitle: true,
    info: {
      Title: `${text.title} ${text.number}`,
      Author: metadata.author,
      Creator: 'billing-platform documents',
      CreationDate: metadata.createdAt,
    },
  });
  const bytes = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const fonts = documentFonts();
  registerFont(doc, 'regular', fonts.regular);
  registerFont(doc, 'bold', fonts.bold);
  doc.font('regular');
  const layout = new Layout(doc);
  layout.header(text);
  layout.facts(text.facts);
  layout.parties(text.parties);
  layout.table(text.table);
  layout.totals(text.totals);
  for (const list of text.lists) layout.list(list.heading, list.rows);
  layout.notes(text.notes);
  doc.end();
  return bytes;
}

/**
 * PDFKit takes a parsed fontkit font wherever it takes a font file (its font factory keeps any
 * source with a `layout` method as it is); its type declarations list files and bytes only. The
 * family is the font's PostScript name, the name PDFKit files an opened font under: a table cell
 * puts the previous font back by its source and family, and so finds the one already open,
 * where without a family it would open and compare the font anew for every cell.
 */
function registerFont(doc: PDFKit.PDFDocument, name: string, font: Font): void {
  doc.registerFont(name, font as unknown as PDFKit.Mixins.PDFFontSource, font.postscriptName);
}

class Layout {
  private readonly left: number;
  private readonly width: number;

  constructor(private readonly doc: PDFKit.PDFDocument) {
    this.left = doc.page.margins.left;
    this.width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  }

  header(text: DocumentText): void {
    const { doc } = this;
    const top = doc.y;
    doc.font('bold').fontSize(SIZE.title).text(`${text.title} ${text.number}`, this.left, top, { width: this.width });
    const below = doc.y;
    if (text.badge !== null) {
      doc.fontSize(SIZE.badge).text(text.badge, this.left, top + 2, { width: this.width, align: 'right' });
    }
    doc.y = Math.max(below, doc.y) + GAP / 2;
  }

  facts(rows: TextRow[]): void {
    const labelWidth = 100;
    for (const row of rows) {
      this.ensureSpace(SIZE.body * 2);
      const y = this.doc.y;
      this.doc.font('regular').fontSize(SIZE.body).fillColor(GREY).text(row.label, this.left, y, { width: labelWidth });
      this.doc.fillColor('black').text(row.value, this.left + labelWidth, y, { width: this.width - labelWidth });
    }
    this.doc.y += GAP;
  }

  /** Seller and buyer side by side. */
  parties(parties: DocumentText['parties']): void {
    const { doc } = this;
    const columnWidth = (this.width - GAP) / parties.length;
    const lines = Math.max(...parties.map((party) => party.lines.length + 1));
    this.ensureSpace(lines * SIZE.body * 1.4);
    const top = doc.y;
    let bottom = top;
    parties.forEach((party, index) => {
      const x = this.left + index * (columnWidth + GAP);
      doc.font('bold').fontSize(SIZE.heading).text(party.heading, x, top, { width: columnWidth });
      doc.font('regular').fontSize(SIZE.body);
      for (const line of party.lines) doc.text(line, x, doc.y, { width: columnWidth });
      bottom = Math.max(bottom, doc.y);
    });
    doc.y = bottom + GAP;
  }

  /**
   * The lines: a header row, then one row a line; PDFKit moves rows that do not fit to a new page.
   */
  table(table: DocumentText['table']): void {
    const { doc } = this;
    if (table.rows.length === 0) return;
    const rule = { border: { bottom: 0.5, top: 0, left: 0, right: 0 }, borderColor: RULE } as const;
    doc.font('regular').fontSize(SIZE.body);
    doc.table({
      position: { x: this.left, y: doc.y },
      maxWidth: this.width,
      columnStyles: table.columns.map((column) => ({
        width: COLUMN_WIDTH[column.kind],
        align: { x: column.kind === 'text' ? 'left' : 'right', y: 'top' },
      })),
      defaultStyle: { ...rule, padding: [4, 4, 4, 4] },
      data: [
        table.columns.map((column) => ({ text: column.label, type: 'TH' as const, font: { src: 'bold' } })),
        ...table.rows,
      ],
    });
    doc.x = this.left;
    doc.y += GAP;
  }

  /** Label and amount pairs against the right margin; the strong ones in bold. */
  totals(rows: TotalRow[]): void {
    const { doc } = this;
    const labelX = this.left + this.width - TOTALS.valueWidth - TOTALS.labelWidth;
    const valueX = this.left + this.width - TOTALS.valueWidth;
    for (const row of rows) {
      this.ensureSpace(SIZE.body * 2);
      const y = doc.y;
      doc.font(row.strong ? 'bold' : 'regular').fontSize(SIZE.body);
      doc.text(row.label, labelX, y, { width: TOTALS.labelWidth - GAP / 2, align: 'right' });
      const labelBottom = doc.y;
      doc.text(row.value, valueX, y, { width: TOTALS.valueWidth, align: 'right' });
      doc.y = Math.max(labelBottom, doc.y) + 2;
    }
    doc.y += GAP;
  }

  list(heading: string, rows: TextRow[]): void {
    const { doc } = this;
    this.ensureSpace(SIZE.heading * 2 + rows.length * SIZE.body * 1.4);
    doc.font('bold').fontSize(SIZE.heading).text(heading, this.left, doc.y, { width: this.width });
    doc.font('regular').fontSize(SIZE.body);
    for (const row of rows) {
      this.ensureSpace(SIZE.body * 2);
      const y = doc.y;
      doc.text(row.label, this.left, y, { width: this.width - TOTALS.valueWidth });
      const labelBottom = doc.y;
      doc.text(row.value, this.left + this.width - TOTALS.valueWidth, y, { width: TOTALS.valueWidth, align: 'right' });
      doc.y = Math.max(labelBottom, doc.y);
    }
    doc.y += GAP;
  }

  notes(notes: string[]): void {
    const { doc } = this;
    doc.font('regular').fontSize(SIZE.note).fillColor(GREY);
    for (const note of notes) {
      this.ensureSpace(SIZE.note * 2);
      doc.text(note, this.left, doc.y, { width: this.width });
      doc.y += 4;
    }
    doc.fillColor('black');
  }

  /** A row whose parts are placed side by side must not be split across pages. */
  private ensureSpace(height: number): void {
    if (this.doc.y + height > this.doc.page.height - this.doc.page.margins.bottom) {
      this.doc.addPage();
    }
  }
}
