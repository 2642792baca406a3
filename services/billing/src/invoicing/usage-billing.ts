import type { Transaction } from 'sequelize';
import { canonicalQuantity, usageAmount } from '../domain/usage-quantity';
import type { SubscriptionModel } from '../db/models';
import type { BillingPeriod } from '../domain/periods';
import { planTermsOf } from '../domain/plan-change';
import { linePeriodOf, usageWindows, type UsageWindow } from '../domain/usage-windows';
import type { BillingDeps } from '../billing-deps';
import type { ChargeInvoiceLine } from './invoice-money';

/**
 * Whether a subscription may have usage to bill: its plan is metered, or it changed plan (an
 * earlier plan may have been metered, and its usage is billed at that plan's unit amount).
 */
export const billsUsage = (subscription: SubscriptionModel) =>
  (subscription.usageUnitAmount ?? null) !== null || (subscription.planChangedAt ?? null) !== null;

/**
 * The windows of a subscription's usage before `before` that a metered plan prices: one per plan
 * in force (docs/api-behaviour.md §18), in time order. Usage under a plan that is not metered is
 * never billed and stays unbilled (§9).
 */
async function meteredWindows(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  before: Date,
  transaction?: Transaction,
): Promise<{ windows: UsageWindow[]; changed: boolean }> {
  if (!billsUsage(subscription)) return { windows: [], changed: false };
  const history = subscription.planChangedAt ? await deps.subscriptionPlans.history(subscription.id, transaction) : [];
  const windows = usageWindows(planTermsOf(subscription), history, before);
  return { windows: windows.filter((w) => w.plan.usageUnitAmount !== null), changed: history.length > 0 };
}

/**
 * One USAGE line: the exact sum of a window's records x its plan's unit amount, rounded once half
 * away from zero; a net negative sum (corrections exceeding usage) bills 0. A subscription that
 * changed plan names the plan, as its invoice may have a line per plan.
 */
function usageLine(window: UsageWindow, total: string, period: BillingPeriod, namePlan: boolean): ChargeInvoiceLine {
  const unitAmount = window.plan.usageUnitAmount!;
  const quantity = canonicalQuantity(total);
  return {
    type: 'USAGE',
    description: namePlan ? `Usage on ${window.plan.name} (${quantity} units)` : `Usage (${quantity} units)`,
    quantity,
    unitAmount,
    amount: Math.max(0, usageAmount(quantity, unitAmount)),
    periodStart: period.start,
    periodEnd: period.end,
  };
}

/**
 * Bills a subscription's metered usage of an ended period on the renewal invoice (docs/api-behaviour.md §8,
 * 9 and 18), inside the renewal's transaction, before that invoice is written (its totals are
 * computed once, with these lines among the others: usecases/invoice-money.ts):
 *  - every unbilled record with timestamp < endedPeriod.end (all unbilled up to the period end)
 *    is marked billed (billed_at, invoice_id = the invoice about to be created), one UPDATE per
 *    plan in force, which also sums the quantities exactly in PostgreSQL NUMERIC; a record
 *    committed concurrently after that UPDATE stays unbilled and goes on the next invoice, never
 *    on two. The foreign key to the invoice is checked at commit (migration 0013), so the invoice
 *    row may follow in the same transaction; without it the transaction does not commit;
 *  - returns ONE USAGE line per plan in force that has records (one line in all for a
 *    subscription that never changed plan) {quantity = the exact sum, unit_amount = that plan's
 *    usage_unit_amount, amount = sum x unit_amount rounded once half away from zero}, with its
 *    part of the ended period on it.
 * [] (and nothing marked) when no plan was metered or nothing is unbilled. A net negative sum
 * (corrections exceeding usage) bills 0: an invoice never goes below the subscription price.
 */
export async function billUsageForPeriod(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  endedPeriod: { start: Date; end: Date },
  invoiceId: string,
  transaction: Transaction,
): Promise<ChargeInvoiceLine[]> {
  const { windows, changed } = await meteredWindows(deps, subscription, endedPeriod.end, transaction);
  if (windows.length === 0) return [];
  const billedAt = await deps.clocks.now(
    { projectId: subscription.projectId, livemode: subscription.livemode },
    transaction,
  );
  const lines: ChargeInvoiceLine[] = [];
  for (const window of windows) {
    const { count, total } = await deps.usage.markBilledIn(subscription.id, window, invoiceId, billedAt, transaction);
    if (count > 0) lines.push(usageLine(window, total, linePeriodOf(window, endedPeriod), changed));
  }
  return lines;
}

/** A plan change's usage, read (a preview) or billed on its invoice (the change itself). */
export type UsageUse = { transaction?: Transaction } | { billOn: string; billedAt: Date; transaction: Transaction };

/**
 * The USAGE lines of a subscription's unbilled usage before `period.end` (a plan change, §18),
 * built as a renewal builds them (each naming its plan: the invoice is about two), with the part
 * of `period` up to the change on them. A preview
 * only reads; the change itself passes `billOn` (its invoice's id) and the records are marked
 * billed on it by the same statements that sum them.
 */
export async function usageUpTo(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  period: BillingPeriod,
  use: UsageUse,
): Promise<ChargeInvoiceLine[]> {
  const { windows } = await meteredWindows(deps, subscription, period.end, use.transaction);
  const lines: ChargeInvoiceLine[] = [];
  for (const window of windows) {
    const { count, total } =
      'billOn' in use
        ? await deps.usage.markBilledIn(subscription.id, window, use.billOn, use.billedAt, use.transaction)
        : await deps.usage.sumUnbilledIn(subscription.id, window, use.transaction);
    if (count > 0) lines.push(usageLine(window, total, linePeriodOf(window, period), true));
  }
  return lines;
}
