import { requireScope } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { applyCardUpdate } from '../usecases/card-updates/apply-card-update.usecase';
import { startCardUpdate } from '../usecases/card-updates/start-card-update.usecase';
import type { BillingHandlers } from './billing-messages';

/**
 * The customer portal's "Update card" (docs/api-behaviour.md §20, "Updating the card"). Thin:
 * proto request -> use case -> proto response.
 */
export function cardUpdateHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async startCardUpdate(req) {
      const authorizationUrl = await startCardUpdate(deps, requireScope(req.scope), {
        customerId: req.customerId,
        subscriptionId: req.subscriptionId,
        returnUrl: req.returnUrl,
      });
      return { authorizationUrl };
    },
    async applyCardUpdate(req) {
      const outcome = await applyCardUpdate(deps, requireScope(req.scope), req.customerId, req.transactionReference);
      return { outcome };
    },
  };
}
