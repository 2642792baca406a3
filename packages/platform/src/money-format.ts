import { toMajorUnits, type Currency } from './money';

/** The locales customers' documents and emails are written in (docs/api-behaviour.md §22, §24). */
export const CUSTOMER_LOCALES = ['en', 'fr'] as const;
export type CustomerLocale = (typeof CUSTOMER_LOCALES)[number];

/** A stored or received locale as one of ours: anything else reads as English, the default. */
export const customerLocaleOf = (value: string | null | undefined): CustomerLocale =>
  CUSTOMER_LOCALES.find((locale) => locale === value) ?? 'en';

/**
 * How each currency's sign is written, in documents and customer emails alike (docs/api-behaviour.md §22, §24: `₦8,062.50` or `NGN 8,062.50`
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

function formatterFor(currency: Currency, locale: CustomerLocale): Intl.NumberFormat {
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
export function formatMoney(minor: number, currency: Currency, locale: CustomerLocale): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount ${minor} is not a whole number of minor units`);
  return formatterFor(currency, locale).format(toMajorUnits(minor));
}
