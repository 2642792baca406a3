import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import type { TaxRateModel } from '../../db/models';
import { validateNewTaxRate, type TaxRateFields } from '../../domain/tax-rates';
import type { BillingDeps } from '../../billing-deps';

/**
 * POST /tax-rates (docs/api-behaviour.md §21): a rate of the scope, active. Its percentage and
 * inclusive never change afterwards; an invoice keeps the rate as it was when the invoice was made.
 */
export async function createTaxRate(
  deps: BillingDeps,
  scope: ProjectScope,
  fields: TaxRateFields,
): Promise<TaxRateModel> {
  const rate = validateNewTaxRate(fields);
  return deps.taxRates.create(scope, { id: randomUUID(), ...rate, createdAt: await deps.clocks.now(scope) });
}
