import type { InvoiceTax, InvoiceTaxRate } from '@billing/platform';

/** A rate as an invoice keeps it (docs/api-behaviour.md §21), named after its percentage: for the pure tax tests. */
export const taxRateOf = (percentage: string, inclusive: boolean): InvoiceTaxRate => ({
  taxRateId: `txr_${percentage}_${inclusive}`,
  displayName: 'VAT',
  percentage,
  inclusive,
});

/** The tax of an invoice with these rates for a taxed customer. */
export const taxedBy = (...rates: InvoiceTaxRate[]): InvoiceTax => ({ rates, exempt: 'NONE' });
