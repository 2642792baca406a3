import type { ProjectScope } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CheckoutQuote } from '../domain/checkout-session';
import type { CouponSnapshot } from '../domain/coupon-rules';
import type { PlanModel } from '../db/models/plan.model';
import type { CatalogDeps } from '../catalog-deps';
import { couponSnapshotMessage } from '../coupon-redemptions/coupon-snapshot-message';

/**
 * The plan as billing keeps it on the subscription a checkout makes (billing.v1.PlanSnapshot),
 * with the plan's default rates as the session kept them when it was made.
 */
export function planSnapshotMessage(plan: PlanModel, planTaxRateIds: string[]): billingV1.PlanSnapshot {
  const { id, name, amount, currency, interval, intervalCount, trialPeriodDays, usageUnitAmount } = plan;
  return {
    planId: id,
    name,
    amount,
    currency,
    interval,
    intervalCount,
    trialPeriodDays,
    usageUnitAmount: usageUnitAmount ?? undefined,
    taxRateIds: planTaxRateIds,
  };
}

/**
 * Billing's quote of a checkout's first invoice (QuoteFirstInvoice, docs/api-behaviour.md §21):
 * catalog computes no money of its own, so the page, the charge and the invoice agree. With it,
 * the name of the project's seller as billing keeps it, for the page (§22).
 */
export async function quoteFirstInvoice(
  deps: CatalogDeps,
  scope: ProjectScope,
  checkout: { plan: PlanModel; planTaxRateIds: string[]; coupon: CouponSnapshot | null; taxRateIds: string[] },
): Promise<{ quote: CheckoutQuote; sellerName: string }> {
  const quote = await deps.billing.quoteFirstInvoice({
    scope,
    plan: planSnapshotMessage(checkout.plan, checkout.planTaxRateIds),
    coupon: checkout.coupon ? couponSnapshotMessage(checkout.coupon) : undefined,
    taxRateIds: checkout.taxRateIds,
  });
  const figures: CheckoutQuote = {
    subtotal: quote.subtotal,
    discount: quote.discount,
    tax: quote.tax,
    totalExcludingTax: quote.totalExcludingTax,
    amount: quote.amount,
    taxAmounts: quote.totalTaxAmounts,
    chargeAmount: quote.chargeAmount,
    verificationCharge: quote.verificationCharge,
  };
  return { quote: figures, sellerName: quote.sellerName };
}
