import { documentStateKey, PdfCache, renderInvoicePdf } from '@billing/documents';
import { sampleCreditNote, sampleInvoice } from '@billing/testing';

describe('PdfCache: a PDF per document state (docs/api-behaviour.md §22)', () => {
  it('answers the same state from the cache with the bytes a fresh render gives', async () => {
    const cache = new PdfCache({ maxBytes: 10_000_000 });
    const first = await cache.invoicePdf(sampleInvoice());
    const second = await cache.invoicePdf(sampleInvoice());
    expect(second).toBe(first);
    expect(cache.size.entries).toBe(1);
    expect((await renderInvoicePdf(sampleInvoice())).equals(first)).toBe(true);
  });

  it('renders anew when the state changes: paid, then a credit note', async () => {
    const cache = new PdfCache({ maxBytes: 10_000_000 });
    const open = { ...sampleInvoice(), status: 'OPEN' as const, amount_paid: 0, amount_due: 805_970, credit_notes: [] };
    const openPdf = await cache.invoicePdf(open);
    const paid = { ...open, status: 'PAID' as const, amount_paid: 805_970, amount_due: 0 };
    const paidPdf = await cache.invoicePdf(paid);
    const credited = { ...paid, credit_notes: [{ number: 'INV-000042-CN1', amount: 100_000 }] };
    const creditedPdf = await cache.invoicePdf(credited);
    expect(paidPdf.equals(openPdf)).toBe(false);
    expect(creditedPdf.equals(paidPdf)).toBe(false);
    expect(cache.size.entries).toBe(3);
    expect(await cache.invoicePdf(paid)).toBe(paidPdf);
  });

  it('keys a state by what it holds, not by the order of its fields', () => {
    const invoice = sampleInvoice();
    const reordered = Object.fromEntries(Object.entries(invoice).reverse()) as typeof invoice;
    expect(documentStateKey('invoice', reordered)).toBe(documentStateKey('invoice', invoice));
    expect(documentStateKey('invoice', { ...invoice, locale: 'fr' })).not.toBe(documentStateKey('invoice', invoice));
  });

  it('renders once for requests of a state that arrive together', async () => {
    const cache = new PdfCache({ maxBytes: 10_000_000 });
    let renders = 0;
    const render = async () => {
      renders += 1;
      return renderInvoicePdf(sampleInvoice());
    };
    const key = documentStateKey('invoice', sampleInvoice());
    const pdfs = await Promise.all([cache.get(key, render), cache.get(key, render), cache.get(key, render)]);
    expect(renders).toBe(1);
    expect(new Set(pdfs).size).toBe(1);
  });

  it('lets the least recently downloaded PDFs go when its bytes are full', async () => {
    const invoicePdf = await renderInvoicePdf(sampleInvoice());
    const cache = new PdfCache({ maxBytes: Math.floor(invoicePdf.length * 2.5) });
    const numbers = ['INV-000001', 'INV-000002', 'INV-000003'];
    for (const number of numbers) await cache.invoicePdf({ ...sampleInvoice(), number });
    expect(cache.size.entries).toBe(2);
    expect(cache.size.bytes).toBeLessThanOrEqual(Math.floor(invoicePdf.length * 2.5));
    let renders = 0;
    const counted = async () => {
      renders += 1;
      return invoicePdf;
    };
    await cache.get(documentStateKey('invoice', { ...sampleInvoice(), number: 'INV-000003' }), counted);
    expect(renders).toBe(0);
    await cache.get(documentStateKey('invoice', { ...sampleInvoice(), number: 'INV-000001' }), counted);
    expect(renders).toBe(1);
  });

  it('keeps an invoice and a credit note apart', async () => {
    const cache = new PdfCache({ maxBytes: 10_000_000 });
    const note = await cache.creditNotePdf(sampleCreditNote());
    const invoice = await cache.invoicePdf(sampleInvoice());
    expect(note.equals(invoice)).toBe(false);
    expect(await cache.creditNotePdf(sampleCreditNote())).toBe(note);
  });
});
