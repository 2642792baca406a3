import { MAX_FRACTION_DIGITS } from '@billing/platform';
import type { DocumentLocale } from './invoice-document';

/**
 * The other figures a document shows, written the locale's way. Quantities and percentages are
 * exact decimal text and go to Intl as text, which formats the exact decimal it spells, never a
 * float's neighbour of it. Text that is not a plain decimal is refused: a document never shows
 * `NaN` where a figure should be.
 */

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

function decimalText(value: string): Intl.StringNumericLiteral {
  if (!DECIMAL_TEXT.test(value)) throw new RangeError(`${JSON.stringify(value)} is not decimal text`);
  return value as Intl.StringNumericLiteral;
}

/** A tax percentage has at most 4 decimals (docs/api-behaviour.md §22). */
const PERCENTAGE_DIGITS = 4;

const percentFormats = new Map<DocumentLocale, Intl.NumberFormat>();
const quantityFormats = new Map<DocumentLocale, Intl.NumberFormat>();
const dateFormats = new Map<DocumentLocale, Intl.DateTimeFormat>();
const regionNames = new Map<DocumentLocale, Intl.DisplayNames>();

function cached<F>(formats: Map<DocumentLocale, F>, locale: DocumentLocale, make: () => F): F {
  let format = formats.get(locale);
  if (!format) {
    format = make();
    formats.set(locale, format);
  }
  return format;
}

/** "7.5" -> `7.5%` (en), `7,5 %` (fr). */
export function formatPercentage(percentage: string, locale: DocumentLocale): string {
  const format = cached(
    percentFormats,
    locale,
    () => new Intl.NumberFormat(locale, { style: 'unit', unit: 'percent', maximumFractionDigits: PERCENTAGE_DIGITS }),
  );
  return format.format(decimalText(percentage));
}

/**
 * A quantity (at most 6 decimals, `MAX_FRACTION_DIGITS`): "1500.25" -> `1,500.25` (en), `1 500,25`
 * (fr).
 */
export function formatQuantity(quantity: string, locale: DocumentLocale): string {
  const format = cached(
    quantityFormats,
    locale,
    () => new Intl.NumberFormat(locale, { maximumFractionDigits: MAX_FRACTION_DIGITS }),
  );
  return format.format(decimalText(quantity));
}

function dateFormat(locale: DocumentLocale): Intl.DateTimeFormat {
  return cached(dateFormats, locale, () => new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }));
}

function dateOf(timestamp: string): Date {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) throw new RangeError(`${JSON.stringify(timestamp)} is not a timestamp`);
  return date;
}

/**
 * A timestamp's day in UTC, where the platform keeps its times (docs/api-behaviour.md §1):
 * `November 21, 2026`.
 */
export function formatDate(timestamp: string, locale: DocumentLocale): string {
  return dateFormat(locale).format(dateOf(timestamp));
}

/** A period as the locale writes a range of days: `November 1 – December 1, 2026`. */
export function formatPeriod(start: string, end: string, locale: DocumentLocale): string {
  return dateFormat(locale).formatRange(dateOf(start), dateOf(end));
}

/**
 * An ISO 3166-1 alpha-2 code as the country's name in the locale (`NG` -> `Nigeria`, `Nigéria`).
 */
export function formatCountry(code: string, locale: DocumentLocale): string {
  const names = cached(regionNames, locale, () => new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' }));
  return names.of(code) ?? code;
}
