import { requireScope } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { createTaxRate } from '../usecases/tax-rates/create-tax-rate.usecase';
import { getTaxRate } from '../usecases/tax-rates/get-tax-rate.usecase';
import { getTaxRates } from '../usecases/tax-rates/get-tax-rates.usecase';
import { listTaxRates } from '../usecases/tax-rates/list-tax-rates.usecase';
import { updateTaxRate } from '../usecases/tax-rates/update-tax-rate.usecase';
import { toTaxRate, type BillingHandlers } from './billing-messages';

/** Tax rates (docs/api-behaviour.md §21). Thin: proto request -> use case -> proto response. */
export function taxRateHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    // The request's fields are the rate's, by name (TaxRateFields).
    async createTaxRate(req) {
      return { taxRate: toTaxRate(await createTaxRate(deps, requireScope(req.scope), req)) };
    },
    async listTaxRates(req) {
      const rates = await listTaxRates(deps, requireScope(req.scope), {
        limit: req.page?.limit,
        startingAfter: req.page?.startingAfter || undefined,
      });
      return { taxRates: rates.map(toTaxRate) };
    },
    async getTaxRate(req) {
      return { taxRate: toTaxRate(await getTaxRate(deps, requireScope(req.scope), req.taxRateId)) };
    },
    async getTaxRates(req) {
      const rates = await getTaxRates(deps, requireScope(req.scope), req.taxRateIds, req.attachedIds);
      return { taxRates: rates.map(toTaxRate) };
    },
    // The request's optional fields are the edit's, by name (TaxRateEdit).
    async updateTaxRate(req) {
      return { taxRate: toTaxRate(await updateTaxRate(deps, requireScope(req.scope), req.taxRateId, req)) };
    },
  };
}
