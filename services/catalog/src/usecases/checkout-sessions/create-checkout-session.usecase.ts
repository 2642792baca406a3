import { randomUUID } from 'node:crypto';
import { DomainError, type ProjectScope } from '@billing/platform';
import {
  checkoutRedemptionKey,
  generateCheckoutCode,
  sessionTaxRateIds,
  validateCheckoutDraft,
  type CheckoutDraft,
} from '../../domain/checkout-session';
import type { CheckoutSessionModel } from '../../db/models/checkout-session.model';
import type { CatalogDeps } from '../../catalog-deps';
import { redeemCode } from '../../coupon-redemptions/redeem-code';
import { quoteFirstInvoice } from '../../checkout/first-invoice-quote';
import { attachableTaxRateIds } from '../../tax-rates/attachable-tax-rates';

/**
 * A new PENDING session. With `couponCode` the coupon is redeemed for it in the same
 * transaction (refused: 400 with the reason, and no session), so the page's price is fixed from
 * the start and the redemption is counted once; it is given back if the session ends unpaid
 * (moveOutOfPending). Its own tax rates are billing's to check (attachable: 422, 404, 403, 400);
 * without them it keeps its plan's as they are now, and billing's quote of the first invoice
 * with the coupon and the rates is kept with it (docs/api-behaviour.md §21), and with it the
 * seller's name the page shows (§22).
 */
export async function createCheckoutSession(
  deps: CatalogDeps,
  scope: ProjectScope,
  planId: string,
  draft: CheckoutDraft & { taxRateIds: string[] | null },
): Promise<CheckoutSessionModel> {
  const plan = await deps.plans.get(scope, planId);
  if (!plan.isActive) throw new DomainError('failed_precondition', 'The plan is not active');
  const minutes = validateCheckoutDraft(draft);
  const taxRateIds = draft.taxRateIds && (await attachableTaxRateIds(deps, scope, draft.taxRateIds));
  const planTaxRateIds = plan.taxRateIds;
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
    const coupon = redeemed?.coupon ?? null;
    const { quote, sellerName } = await quoteFirstInvoice(deps, scope, {
      plan,
      planTaxRateIds,
      coupon,
      taxRateIds: sessionTaxRateIds({ taxRateIds, planTaxRateIds }),
    });
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
        coupon,
        taxRateIds,
        planTaxRateIds,
        quote,
        sellerName,
      },
      transaction,
    );
  });
}
