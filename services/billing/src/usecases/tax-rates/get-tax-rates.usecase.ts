import type { ProjectScope } from '@billing/platform';
import type { TaxRateModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import { attachableTaxRates } from '../../invoicing/invoice-taxes';

/**
 * The rates `ids` names, in that order, to be attached where tax rates come from besides
 * subscriptions: catalog's plans and checkout sessions (docs/api-behaviour.md §21). The rules are
 * a subscription's: at most 5, each once (422 at body.tax_rate_ids); each of this project and
 * mode (404, 403); active (400), unless `attachedIds` has it already.
 */
export function getTaxRates(
  deps: BillingDeps,
  scope: ProjectScope,
  ids: string[],
  attachedIds: string[],
): Promise<TaxRateModel[]> {
  const attached = new Set(attachedIds.map((id) => id.toLowerCase()));
  return attachableTaxRates(deps, scope, ids, ['body', 'tax_rate_ids'], (id) => attached.has(id));
}
