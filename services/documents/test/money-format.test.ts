import { formatMoney } from '@billing/platform';
import { formatCountry, formatDate, formatPercentage, formatPeriod, formatQuantity } from '@billing/documents';

// Intl's own spaces, written out: a no-break space (U+00A0) before a trailing sign, a narrow
// no-break space (U+202F) between French thousands.
const NBSP = '\u00a0';
const NNBSP = '\u202f';

describe('formatMoney: minor units in the currency, the customer locale way (docs/api-behaviour.md §22)', () => {
  it.each([
    ['NGN', 'en', '₦8,062.50'],
    ['NGN', 'fr', `8${NNBSP}062,50${NBSP}₦`],
    ['GHS', 'en', 'GH₵8,062.50'],
    ['GHS', 'fr', `8${NNBSP}062,50${NBSP}GH₵`],
    ['KES', 'en', `KES${NBSP}8,062.50`],
    ['KES', 'fr', `8${NNBSP}062,50${NBSP}KES`],
    ['ZAR', 'en', `R${NBSP}8,062.50`],
    ['ZAR', 'fr', `8${NNBSP}062,50${NBSP}R`],
    ['USD', 'en', '$8,062.50'],
    ['USD', 'fr', `8${NNBSP}062,50${NBSP}$US`],
  ] as const)('%s in %s: 8,062.50 (docs/api-behaviour.md §22) is %s', (currency, locale, expected) => {
    expect(formatMoney(806_250, currency, locale)).toBe(expected);
  });

  it('writes a credit or discount with its minus sign', () => {
    expect(formatMoney(-250_000, 'NGN', 'en')).toBe('-₦2,500.00');
    expect(formatMoney(-250_000, 'NGN', 'fr')).toBe(`-2${NNBSP}500,00${NBSP}₦`);
  });

  it('keeps every minor unit: zero, one kobo, and a billion naira', () => {
    expect(formatMoney(0, 'NGN', 'en')).toBe('₦0.00');
    expect(formatMoney(1, 'NGN', 'en')).toBe('₦0.01');
    expect(formatMoney(123_456_789_012, 'NGN', 'en')).toBe('₦1,234,567,890.12');
  });

  it('refuses an amount that is not a whole number of minor units', () => {
    expect(() => formatMoney(806_250.5, 'NGN', 'en')).toThrow(RangeError);
  });
});

describe('the other figures of a document', () => {
  it('writes tax percentages as given, up to their 4 decimals (docs/api-behaviour.md §22)', () => {
    expect(formatPercentage('7.5', 'en')).toBe('7.5%');
    expect(formatPercentage('7.5', 'fr')).toBe(`7,5${NBSP}%`);
    expect(formatPercentage('0.1234', 'en')).toBe('0.1234%');
    expect(formatPercentage('16', 'en')).toBe('16%');
  });

  it('writes quantities exactly, to their 6 decimals', () => {
    expect(formatQuantity('1500.25', 'en')).toBe('1,500.25');
    expect(formatQuantity('1500.25', 'fr')).toBe(`1${NNBSP}500,25`);
    expect(formatQuantity('0.000001', 'en')).toBe('0.000001');
    expect(formatQuantity('123456789012345678.5', 'en')).toBe('123,456,789,012,345,678.5');
  });

  it('refuses text that is not a plain decimal rather than print NaN', () => {
    expect(() => formatQuantity('1e3', 'en')).toThrow(RangeError);
    expect(() => formatPercentage('seven', 'en')).toThrow(RangeError);
  });

  it('writes dates and periods in UTC, the way the locale does', () => {
    expect(formatDate('2026-11-21T23:30:00.000Z', 'en')).toBe('November 21, 2026');
    expect(formatDate('2026-11-21T23:30:00.000Z', 'fr')).toBe('21 novembre 2026');
    expect(formatPeriod('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 'fr')).toBe(
      '1 novembre\u2009–\u20091 décembre 2026',
    );
    expect(() => formatDate('yesterday', 'en')).toThrow(RangeError);
  });

  it('names countries in the locale', () => {
    expect(formatCountry('GH', 'en')).toBe('Ghana');
    expect(formatCountry('ZA', 'fr')).toBe('Afrique du Sud');
  });
});
