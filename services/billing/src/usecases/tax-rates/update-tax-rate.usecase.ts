import type { ProjectScope } from '@billing/platform';
import type { TaxRateModel } from '../../db/models';
import { validateTaxRateEdit, type TaxRateEdit } from '../../domain/tax-rates';
import type { BillingDeps } from '../../billing-deps';

/**
 * PATCH /tax-rates/{id} (docs/api-behaviour.md §21): its display name, description or activity.
 * A deactivated rate can't be newly attached, but keeps applying where it is; a renamed one is
 * shown under its new name on invoices made afterwards (issued invoices keep theirs). Percentage
 * and inclusive are not among the changes at all: the gateway refuses them (422).
 */
export async function updateTaxRate(
  deps: BillingDeps,
  scope: ProjectScope,
  taxRateId: string,
  changes: TaxRateEdit,
): Promise<TaxRateModel> {
  const rate = await deps.taxRates.get(scope, taxRateId);
  const edit = validateTaxRateEdit(changes);
  if (edit.displayName === undefined && edit.description === undefined && edit.isActive === undefined) return rate;
  return deps.taxRates.save(rate, {
    ...(edit.displayName !== undefined && { displayName: edit.displayName }),
    // An empty description clears it.
    ...(edit.description !== undefined && { description: edit.description || null }),
    ...(edit.isActive !== undefined && { isActive: edit.isActive }),
    updatedAt: await deps.clocks.now(scope),
  });
}
