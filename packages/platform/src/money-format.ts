import { toMajorUnits, type Currency } from './money';

/** The locales customers read documents and pages in (en, the default, or fr). */
export type DisplayLocale = 'en' | 'fr';

/**
 * How each currency's sign is written (docs/api-behaviour.md §22 and §24: `₦8,062.50` or `NGN 8,062.50`
 * style, via Intl). The narrow sign (₦, GH₵, R) is unambiguous among the platform's currencies and
 * is what their customers read; where CLDR has none (KES) Intl writes the code. A bare `$` is
 * ambiguous in French (Canada's dollar), so USD takes the locale's own symbol: `$` in English,
 * `$US` in French.
 */
const CURRENCY_DISPLAY: Record<Currency, 'narrowSymbol' | 'symbol'> = {
  NGN: 'narrowSymbol',
  GHS: 'narrowSymbol',
  KES: 'narrowSymbol',
  ZAR: 'narrowSymbol',
  USD: 'symbol',
};

/** Intl.NumberFormat is costly to build and safe to share: one per currency and locale. */
const formatters = new Map<string, Intl.NumberFormat>();

function formatterFor(currency: Currency, locale: DisplayLocale): Intl.NumberFormat {
  const key = `${currency}:${locale}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      currencyDisplay: CURRENCY_DISPLAY[currency],
    });
    formatters.set(key, formatter);
  }
  return formatter;
}

/**
 * An amount of integer minor units as the customer's locale writes it (`₦8,062.50`, `8 062,50 ₦`).
 */
export function formatMoney(minor: number, currency: Currency, locale: DisplayLocale): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount ${minor} is not a whole number of minor units`);
  return formatterFor(currency, locale).format(toMajorUnits(minor));
}
