import { DomainError } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import { NO_TAX, totalInvoice, type InvoiceTotals } from '../domain/invoice-totals';
import { heldBeforeTaxForPeriod } from '../domain/period-payment';
import type { BillingPeriod } from '../domain/periods';
import { decidePlanChange, planTermsOf, type PlanChange, type PlanChangeRequest } from '../domain/plan-change';
import type { BillingDeps } from '../billing-deps';
import { usageUpTo, type UsageUse } from '../invoicing/usage-billing';
import type { ChargeInvoiceLine } from '../invoicing/invoice-money';

/** What a plan change does at one moment: the decision, and the invoice it makes (if any). */
export interface PlanChangeQuote {
  change: PlanChange;
  /** The invoice's lines before its money (proration or new period, then usage); [] for none. */
  lines: ChargeInvoiceLine[];
  /** The invoice's period; the current period when the change makes no invoice. */
  period: BillingPeriod;
}

/**
 * The one computation behind POST /subscriptions/{id}/change-plan and its preview
 * (docs/api-behaviour.md §18): the rules (decidePlanChange), then, for a change that invoices,
 * its lines: the proration (whole seconds, one rounding per line) and the usage up to the change,
 * priced per plan in force. A preview reads the usage (`use` without `billOn`); the change
 * passes its invoice's id and the records are billed on it. The money of those lines is
 * totalInvoice's, for the preview as for the invoice.
 */
export async function quotePlanChange(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  request: PlanChangeRequest,
  now: Date,
  use: UsageUse,
): Promise<PlanChangeQuote> {
  const current = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  const change = decidePlanChange(
    {
      status: subscription.status,
      currency: subscription.currency,
      plan: planTermsOf(subscription),
      currentPeriodStart: subscription.currentPeriodStart,
      currentPeriodEnd: subscription.currentPeriodEnd,
      paidForPeriod: heldBeforeTaxForPeriod(
        await deps.invoices.moneyOfPeriod(subscription.id, current, use.transaction),
      ),
    },
    request,
    now,
  );
  if (change.kind === 'schedule' || change.kind === 'clear_pending') return { change, lines: [], period: current };
  // P, what the period was paid, is known only once its charges have an outcome: a change waits
  // for an earlier change's charge, or for the renewal's, rather than prorate a period whose
  // payment may still land (it would then credit nothing of it).
  const open = await deps.invoices.findOpenOfSubscription(subscription.id, use.transaction);
  if (open) {
    throw new DomainError(
      'unavailable',
      open.planChange
        ? "Another plan change of this subscription is waiting for its payment's outcome; please retry"
        : "The period's charge is waiting for the provider's answer; please retry once it is known",
    );
  }
  if (change.kind === 'swap') return { change, lines: [], period: current };
  const usage = await usageUpTo(deps, subscription, { start: current.start, end: change.at }, use);
  return { change, lines: [...change.lines, ...usage], period: change.period };
}

/** The totals of a quote with no invoice: all zero. */
export const NO_INVOICE_TOTALS: InvoiceTotals = totalInvoice([], null, NO_TAX, 0);
