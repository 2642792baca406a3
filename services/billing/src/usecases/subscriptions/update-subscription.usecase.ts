import { DomainError, type ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { attachableTaxRates } from '../../invoicing/invoice-taxes';
import type { SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { recordMrrRevision } from '../../subscription-changes/record-mrr-revision';

export interface SubscriptionUpdate {
  /**
   * The subscription's own tax rates (docs/api-behaviour.md §21), replacing its plan's: at most
   * 5, active, of this project and mode; [] = no tax; null = its plan's again; undefined: as they are.
   */
  taxRateIds?: string[] | null;
}

const FINAL = ['CANCELLED', 'EXPIRED'];

/**
 * PATCH /subscriptions/{id}: its tax rates, for the invoices made from now on; issued invoices
 * never change. A rate attached before and deactivated since may stay (it keeps applying where
 * it is attached); only the rates sent are checked as newly attached. Under the subscription's
 * row lock, so a renewal being invoiced right now is taxed by the rates before or after, never
 * a mix. A cancelled or expired subscription makes no more invoices: 400.
 */
export function updateSubscription(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  update: SubscriptionUpdate,
): Promise<SubscriptionView> {
  return changeSubscription(deps, scope, subscriptionId, async (subscription, now, transaction) => {
    if (update.taxRateIds === undefined) return;
    if (FINAL.includes(subscription.status)) {
      throw new DomainError(
        'failed_precondition',
        `A ${subscription.status.toLowerCase()} subscription makes no more invoices; its tax rates cannot change`,
      );
    }
    const attached = new Set(subscription.taxRateIds ?? []);
    const rates =
      update.taxRateIds === null
        ? null
        : await attachableTaxRates(deps, scope, update.taxRateIds, ['body', 'tax_rate_ids'], (id) => attached.has(id));
    await deps.subscriptions.setTaxRates(subscription, rates && rates.map((rate) => rate.id), now, transaction);
    await recordMrrRevision(deps, subscription, now, transaction);
  });
}
