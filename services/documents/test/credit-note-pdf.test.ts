import { renderCreditNotePdf } from '@billing/documents';
import { labelledValues, missingFrom, pdfStrings, sampleCreditNote } from '@billing/testing';

describe('a credit note PDF (docs/api-behaviour.md §22)', () => {
  it('holds its number, the invoice number, the amount, each rate’s tax and the reason', async () => {
    const strings = await pdfStrings(await renderCreditNotePdf(sampleCreditNote()));
    expect(
      missingFrom(strings, [
        'Credit note INV-000042-CN1',
        'INV-000042',
        'Credit against invoice INV-000042',
        'Product unsatisfactory',
        'Card',
        'Memo: Two days of outage in November',
      ]),
    ).toEqual([]);
    const values = labelledValues(strings);
    expect(values.get('of which VAT (7.5%)')).toBe('₦69.44');
    expect(values.get('of which Stamp duty (0.5%, incl.)')).toBe('₦4.63');
    expect(values.get('Total credited')).toBe('₦1,000.00');
  });

  it('writes a French note in French', async () => {
    const note = {
      ...sampleCreditNote(),
      locale: 'fr' as const,
      reason: 'DUPLICATE' as const,
      refund_to: 'BALANCE' as const,
    };
    const strings = await pdfStrings(await renderCreditNotePdf(note));
    expect(missingFrom(strings, ['Avoir INV-000042-CN1', 'Doublon', 'Solde client'])).toEqual([]);
    expect(labelledValues(strings).get('Total crédité')).toBe('1 000,00 ₦');
  });

  it('gives the same bytes for the same note, and other bytes for another amount', async () => {
    const first = await renderCreditNotePdf(sampleCreditNote());
    expect((await renderCreditNotePdf(sampleCreditNote())).equals(first)).toBe(true);
    expect((await renderCreditNotePdf({ ...sampleCreditNote(), amount: 50_000 })).equals(first)).toBe(false);
  });
});
