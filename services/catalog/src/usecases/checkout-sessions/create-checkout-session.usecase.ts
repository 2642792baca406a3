import { randomUUID } from 'node:crypto';
import { DomainError, type ProjectScope } from '@billing/platform';
import {
  checkoutRedemptionKey,
  generateCheckoutCode,
  validateCheckoutDraft,
  type CheckoutDraft,
} from '../../domain/checkout-session';
import type { CheckoutSessionModel } from '../../db/models/checkout-session.model';
import type { CatalogDeps } from '../../catalog-deps';
import { redeemCode } from '../../coupon-redemptions/redeem-code';

/**
 * A new PENDING session. With `couponCode` the coupon is redeemed for it in the same
 * transaction (refused: 400 with the reason, and no session), so the page's price is fixed from
 * the start and the redemption is counted once; it is given back if the session ends unpaid
 * (moveOutOfPending).
 */
export async function createCheckoutSession(
  deps: CatalogDeps,
  scope: ProjectScope,
  planId: string,
  draft: CheckoutDraft,
): Promise<CheckoutSessionModel> {
  const plan = await deps.plans.get(scope, planId);
  if (!plan.isActive) throw new DomainError('failed_precondition', 'The plan is not active');
  const minutes = validateCheckoutDraft(draft);
  const now = await deps.clocks.now(scope);
  const id = randomUUID();
  return deps.sequelize.transaction(async (transaction) => {
    const redeemed = draft.couponCode
      ? await redeemCode(
          deps,
          scope,
          {
            code: draft.couponCode,
            redemptionKey: checkoutRedemptionKey(id),
            planId: plan.id,
            currency: plan.currency,
          },
          transaction,
        )
      : null;
    return deps.checkoutSessions.create(
      {
        id,
        projectId: scope.projectId,
        merchantId: scope.merchantId,
        livemode: scope.livemode,
        code: generateCheckoutCode(),
        planId: plan.id,
        successUrl: draft.successUrl ?? null,
        cancelUrl: draft.cancelUrl ?? null,
        customerEmail: draft.customerEmail ?? null,
        customerName: draft.customerName ?? null,
        metadata: draft.metadata ?? {},
        expiresAt: new Date(now.getTime() + minutes * 60_000),
        createdAt: now,
        allowPromotionCodes: draft.allowPromotionCodes ?? false,
        coupon: redeemed?.coupon ?? null,
      },
      transaction,
    );
  });
}
