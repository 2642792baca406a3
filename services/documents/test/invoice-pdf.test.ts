import { formatMoney } from '@billing/platform';
import { renderInvoicePdf, type InvoiceDocument } from '@billing/documents';
import { labelledValues, missingFrom, pdfPages, pdfStrings, plainSpaces, sampleInvoice } from '@billing/testing';

/** The strings of an invoice's PDF, rendered once per document a test names. */
async function stringsOf(invoice: InvoiceDocument): Promise<string[]> {
  return pdfStrings(await renderInvoicePdf(invoice));
}

describe('an invoice PDF (docs/api-behaviour.md §22)', () => {
  let invoice: InvoiceDocument;
  let pdf: Buffer;
  let strings: string[];

  beforeAll(async () => {
    invoice = sampleInvoice();
    pdf = await renderInvoicePdf(invoice);
    strings = await pdfStrings(pdf);
  });

  it('is a PDF whose text is set in the embedded DejaVu Sans, not a font of the reader', () => {
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const fonts = pdf.toString('latin1').match(/\/BaseFont \/[A-Z]{6}\+[\w-]+/g) ?? [];
    expect(new Set(fonts.map((font) => font.split('+')[1]))).toEqual(new Set(['DejaVuSans', 'DejaVuSans-Bold']));
  });

  it('holds the number, the status, the seller and the buyer in its text layer', () => {
    expect(
      missingFrom(strings, [
        'Invoice INV-000042',
        'Paid',
        'Kano Cloud Services Ltd',
        'Tax ID: TIN 12345678-0001',
        'Adaeze Okafor',
        'adaeze@example.com',
        'November 21, 2026',
        'November 1 – December 1, 2026',
      ]),
    ).toEqual([]);
    expect(labelledValues(strings).get('Status')).toBe('Paid');
  });

  it("holds each of the 20 lines' description and amounts", () => {
    expect(invoice.lines).toHaveLength(20);
    expect(
      missingFrom(
        strings,
        invoice.lines.map((line) => line.description),
      ),
    ).toEqual([]);
    // Every line's amount, and the plan line's unit price.
    expect(strings.filter((s) => s === '₦500.00')).toHaveLength(21);
    expect(strings.filter((s) => s === '₦200.00')).toHaveLength(19);
    expect(strings.filter((s) => s === '2.5')).toHaveLength(19);
  });

  it('holds each tax with its name and percentage, inclusive ones marked', () => {
    const values = labelledValues(strings);
    expect(values.get('VAT (7.5%)')).toBe('₦559.70');
    expect(values.get('Stamp duty (0.5%, incl.)')).toBe('₦37.31');
  });

  it('holds the totals as the customer reads them in ₦', () => {
    const pairs = labelledValues(strings);
    expect(pairs.get('Subtotal')).toBe('₦10,000.00');
    expect(pairs.get('Discount')).toBe('-₦2,500.00');
    expect(pairs.get('Total')).toBe('₦8,059.70');
    expect(pairs.get('Amount paid')).toBe('₦8,059.70');
    expect(pairs.get('Amount due')).toBe('₦0.00');
    expect(pairs.get('INV-000042-CN1')).toBe('₦1,000.00');
    expect(strings).toContain('Thank you for your business. Questions: billing@kanocloud.example');
  });

  it('shows credit applied and the tax note of a reverse-charge invoice when it has them', async () => {
    const reverseCharge = {
      ...sampleInvoice(),
      status: 'OPEN' as const,
      credit_applied: 300_000,
      amount_paid: 0,
      amount_due: 505_970,
      credit_notes: [],
      tax_note: 'Reverse charge',
    };
    const open = await stringsOf(reverseCharge);
    const pairs = labelledValues(open);
    expect(pairs.get('Credit applied')).toBe('-₦3,000.00');
    expect(pairs.get('Amount due')).toBe('₦5,059.70');
    expect(missingFrom(open, ['Open', 'Reverse charge'])).toEqual([]);
    expect(open).not.toContain('Refunds and credit notes');
  });

  it('gives the same bytes for the same document, rendered again', async () => {
    const again = await renderInvoicePdf(sampleInvoice());
    expect(again.equals(pdf)).toBe(true);
  });

  it('gives other bytes, and the new status, when the status changes', async () => {
    const voided = await renderInvoicePdf({ ...sampleInvoice(), status: 'VOID' });
    expect(voided.equals(pdf)).toBe(false);
    const voidStrings = await pdfStrings(voided);
    expect(voidStrings).toContain('Void');
    expect(voidStrings).not.toContain('Paid');
  });

  it('writes a French invoice in French, its amounts the French way', async () => {
    const french = await stringsOf({ ...sampleInvoice(), locale: 'fr' });
    expect(missingFrom(french, ['Facture INV-000042', 'Payée', '21 novembre 2026', 'VAT (7,5 %)'])).toEqual([]);
    const pairs = labelledValues(french);
    expect(pairs.get('Total')).toBe(plainSpaces(formatMoney(805_970, 'NGN', 'fr')));
    expect(pairs.get('Total')).toBe('8 059,70 ₦');
    expect(pairs.get('Sous-total')).toBe('10 000,00 ₦');
    expect(pairs.get('Montant dû')).toBe('0,00 ₦');
    expect(french.filter((s) => s === '500,00 ₦')).toHaveLength(21);
    expect(french).not.toContain('₦8,059.70');
  });

  it('moves lines that do not fit to a next page, every one of them still in the text', async () => {
    const long = sampleInvoice();
    long.lines = Array.from({ length: 60 }, (_, index) => ({
      description: `Seat ${index + 1}`,
      quantity: '1',
      unit_amount: 10_000,
      amount: 10_000,
    }));
    const pages = await pdfPages(await renderInvoicePdf(long));
    expect(pages.length).toBeGreaterThan(1);
    expect(
      missingFrom(
        pages.flat(),
        long.lines.map((line) => line.description),
      ),
    ).toEqual([]);
    // The totals follow the lines onto a later page (the footer may go on to another).
    expect(pages[0]).not.toContain('Amount due');
    expect(pages.slice(1).flat()).toEqual(expect.arrayContaining(['Amount due', 'Refunded']));
  });
});
