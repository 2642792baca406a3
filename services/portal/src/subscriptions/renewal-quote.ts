import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type ProjectScope } from '@billing/platform';
import type { billingV1, catalogV1 } from '@billing/proto';
import { planSnapshotOf } from '@billing/proto';
import type { PortalDeps } from '../portal-deps';

export interface RenewalQuote {
  /** When the next period starts (the current one's end). */
  date: Date;
  /** Its invoice total, discount and tax included, before any balance: minor units. */
  amount: number;
  currency: string;
}

/** Statuses whose subscription renews at its period's end (§8), unless it cancels then. */
const RENEWING = new Set(['ACTIVE', 'TRIALING', 'PAST_DUE']);

/**
 * What the subscription's next period costs (docs/api-behaviour.md §24: "price after discount and
 * tax", "next renewal date and amount"): billing's own invoice arithmetic, QuoteFirstInvoice, on
 * the plan the renewal bills (a pending change's plan, else its own), the discount it still has
 * and its tax rates. Metered usage is billed on top as it is used and is not in it.
 */
export async function renewalQuote(
  deps: PortalDeps,
  scope: ProjectScope,
  subscription: billingV1.Subscription,
): Promise<RenewalQuote | null> {
  if (!RENEWING.has(subscription.status) || subscription.cancelAtPeriodEnd || !subscription.currentPeriodEnd) {
    return null;
  }
  const planId = subscription.pendingPlanId ?? subscription.planId;
  const plan = await planOrNull(deps, scope, planId);
  if (!plan) return null;
  const discount = subscription.discount;
  const discountLeft = discount && (discount.periodsRemaining === undefined || discount.periodsRemaining > 0);
  const rates = subscription.taxRates;
  const quote = await deps.billing.quoteFirstInvoice({
    scope,
    // The renewal bills a period, never a trial: the quote's amount is the period's.
    plan: { ...planSnapshotOf(plan), trialPeriodDays: 0 },
    coupon: discountLeft
      ? {
          couponId: discount.couponId,
          code: discount.code,
          percentOff: discount.percentOff,
          amountOff: discount.amountOff,
          currency: discount.currency,
          duration: discount.duration,
          durationInPeriods: discount.periodsRemaining,
        }
      : undefined,
    taxRateIds: rates && !rates.fromPlan ? rates.ids : plan.taxRateIds,
  });
  return { date: subscription.currentPeriodEnd, amount: quote.amount, currency: quote.currency };
}

/** A plan as catalog has it; null when catalog no longer knows it (the page then shows no price). */
export async function planOrNull(
  deps: PortalDeps,
  scope: ProjectScope,
  planId: string,
): Promise<catalogV1.Plan | null> {
  try {
    return (await deps.catalog.getPlan({ scope, planId })).plan ?? null;
  } catch (err) {
    if (isGrpcServiceError(err) && (err.code === GrpcStatus.NOT_FOUND || err.code === GrpcStatus.PERMISSION_DENIED)) {
      return null;
    }
    throw err;
  }
}
