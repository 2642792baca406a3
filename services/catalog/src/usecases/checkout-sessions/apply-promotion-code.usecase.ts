import { DomainError } from '@billing/platform';
import { checkoutRedemptionKey, sessionTaxRateIds } from '../../domain/checkout-session';
import { quoteFirstInvoice } from '../../checkout/first-invoice-quote';
import { normalizeCouponCode } from '../../domain/coupon-rules';
import type { CheckoutSessionModel } from '../../db/models/checkout-session.model';
import { CheckoutPageError } from '../../checkout/checkout-page-error';
import { findOpenSession } from '../../checkout/find-open-session';
import type { CatalogDeps } from '../../catalog-deps';
import { giveBackRedemption } from '../../coupon-redemptions/give-back-redemption';
import { redeemCode } from '../../coupon-redemptions/redeem-code';

const PRICE_FIXED =
  'A payment of this checkout has already started, so its price can no longer change. Finish that payment, or ask the merchant for a new link.';

/**
 * "Apply" of the hosted page's "Promotion code" field (docs/api-behaviour.md §19): redeems the
 * code for the session (key checkout:<session id>), giving back the code applied before, so the
 * page re-prices before Pay. An empty field removes the applied code. A refusal is the page's
 * error in words (CheckoutPageError) and leaves the session as it was.
 *
 * The price is fixed once a payment has started: that payment was made for it. Payments the
 * provider refused are settled NOT_PAID first, so a declined card does not lock the price.
 * The session's row lock orders this against Pay (startCheckoutPayment).
 */
export async function applyPromotionCode(
  deps: CatalogDeps,
  code: string,
  typed: string,
): Promise<CheckoutSessionModel> {
  const session = await findOpenSession(deps, code);
  if (!session) throw new DomainError('not_found', 'Checkout session not found');
  if (session.status !== 'PENDING')
    throw new CheckoutPageError(`This checkout is ${session.status.toLowerCase()}.`, session);
  if (!session.allowPromotionCodes)
    throw new CheckoutPageError('This checkout does not take promotion codes.', session);
  const wanted = normalizeCouponCode(typed);
  if (!wanted && !session.coupon) throw new CheckoutPageError('Please enter a promotion code.', session);
  await settleRefusedPayments(deps, session);

  const scope = { projectId: session.projectId, merchantId: session.merchantId, livemode: session.livemode };
  const plan = await deps.plans.ofSession(session.planId);
  try {
    await deps.sequelize.transaction(async (transaction) => {
      const locked = await deps.checkoutSessions.lockById(session.id, transaction);
      if (locked?.status !== 'PENDING')
        throw new CheckoutPageError(`This checkout is ${(locked ?? session).status.toLowerCase()}.`, session);
      if (locked.coupon?.code === wanted) return;
      if ((await deps.checkoutPayments.listStarted(session.id, transaction)).length > 0)
        throw new CheckoutPageError(PRICE_FIXED, session);
      const key = checkoutRedemptionKey(session.id);
      await giveBackRedemption(deps, scope, key, transaction);
      const redeemed = wanted
        ? await redeemCode(
            deps,
            scope,
            { code: wanted, redemptionKey: key, planId: plan.id, currency: plan.currency },
            transaction,
          )
        : null;
      const coupon = redeemed?.coupon ?? null;
      // The page shows, and Pay charges, billing's quote with the new coupon (§21); the seller's
      // name stays the one kept with the session (docs/api-behaviour.md §22).
      const { quote } = await quoteFirstInvoice(deps, scope, {
        plan,
        planTaxRateIds: locked.planTaxRateIds,
        coupon,
        taxRateIds: sessionTaxRateIds(locked),
      });
      await deps.checkoutSessions.setCoupon(locked, coupon, quote, transaction);
    });
  } catch (err) {
    // The coupon's refusal (unknown, expired, ...) in its own words, on the page.
    if (err instanceof DomainError && err.kind === 'failed_precondition') {
      throw new CheckoutPageError(`${err.message}.`, session);
    }
    throw err;
  }
  await deps.checkoutSessions.refresh(session);
  return session;
}

/** Payments the provider has refused paid nothing: they no longer hold the price. */
async function settleRefusedPayments(deps: CatalogDeps, session: CheckoutSessionModel): Promise<void> {
  for (const payment of await deps.checkoutPayments.listStarted(session.id)) {
    const verified = await deps
      .paymentsFor(session.livemode)
      .verifyTransaction(payment.reference)
      .catch(() => null);
    if (verified?.status === 'failed')
      await deps.checkoutPayments.settle(payment.reference, 'NOT_PAID', deps.clock.now());
  }
}
