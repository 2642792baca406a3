import { formatInvoiceNumber } from '../src/domain/invoice-number';

describe('invoice numbers', () => {
  it('pads to six digits and grows past them', () => {
    expect(formatInvoiceNumber(1)).toBe('INV-000001');
    expect(formatInvoiceNumber(42)).toBe('INV-000042');
    expect(formatInvoiceNumber(1234567)).toBe('INV-1234567');
  });

  it('refuses a sequence that is not a positive integer', () => {
    expect(() => formatInvoiceNumber(0)).toThrow(RangeError);
    expect(() => formatInvoiceNumber(1.5)).toThrow(RangeError);
  });
});
