import type { InvoiceModel } from '../db/models';
import type { RateAmount } from '../domain/credit-notes';

/**
 * An invoice's tax per rate (docs/api-behaviour.md §21's `total_tax_amounts`, minor units): the
 * one place anything reads it, so that a credit note carries back its share of each rate (§23).
 * No invoice carries per-rate tax yet (invoices are not taxed until §21 is built), so every
 * invoice has none and its notes carry no tax, which is exact for an untaxed invoice. When
 * invoices gain their tax amounts, this function reads them and nothing else changes.
 */
export function invoiceTaxesOf(_invoice: InvoiceModel): RateAmount[] {
  return [];
}
