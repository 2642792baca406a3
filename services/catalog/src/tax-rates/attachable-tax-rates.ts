import type { ProjectScope } from '@billing/platform';
import type { CatalogDeps } from '../catalog-deps';

/**
 * Tax rates are billing's (docs/decisions.md, "Tax rates in billing"): catalog keeps only the ids
 * its plans and checkout sessions carry, and asks billing whether each may be attached
 * (GetTaxRates, docs/api-behaviour.md §21): at most 5, each once (422); of this project and
 * mode (404, 403); active (400) unless `attachedIds` carries it already. Billing's refusal is
 * answered as billing gave it. The ids as billing stores them, in order.
 */
export async function attachableTaxRateIds(
  deps: CatalogDeps,
  scope: ProjectScope,
  ids: string[],
  attachedIds: string[] = [],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { taxRates } = await deps.billing.getTaxRates({ scope, taxRateIds: ids, attachedIds });
  return taxRates.map((rate) => rate.id);
}
