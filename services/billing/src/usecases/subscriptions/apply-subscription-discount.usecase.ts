import { DomainError, type ProjectScope } from '@billing/platform';
import { discountFromCoupon, type CouponTerms } from '../../domain/subscription-discount';
import type { SubscriptionModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import type { SubscriptionView } from '../../read-models/subscription.read-model';
import { changeSubscription } from '../../subscription-changes/change-subscription';
import { recordMrrRevision } from '../../subscription-changes/record-mrr-revision';

const FINAL = ['CANCELLED', 'EXPIRED'];

function assertOpen(subscription: SubscriptionModel): void {
  if (FINAL.includes(subscription.status)) {
    throw new DomainError(
      'failed_precondition',
      `A ${subscription.status.toLowerCase()} subscription cannot take a discount`,
    );
  }
}

/**
 * `POST /subscriptions/{id}/discount` (docs/api-behaviour.md §19): the coupon's discount replaces
 * the one the subscription had and covers its next invoices (the next renewal first); what was
 * invoiced already does not change. The caller redeemed the coupon at catalog first. Under the
 * subscription's row lock, so a renewal being invoiced right now sees the discount before or after,
 * never half of it.
 */
export function applySubscriptionDiscount(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  coupon: CouponTerms,
): Promise<SubscriptionView> {
  return changeSubscription(deps, scope, subscriptionId, async (subscription, now, transaction) => {
    assertOpen(subscription);
    const discount = discountFromCoupon(coupon, subscription.currency);
    await deps.subscriptions.setDiscount(subscription, discount, now, transaction);
    await recordMrrRevision(deps, subscription, now, transaction);
  });
}
