import type { ProjectScope } from '@billing/platform';
import type { NewInvoiceLine } from '../../db/repositories/invoice.repository';
import type { InvoiceTotals } from '../../domain/invoice-totals';
import type { BillingPeriod } from '../../domain/periods';
import type { BillingDeps } from '../../billing-deps';
import { planChangeRequestOf, type PlanChangeCommand } from '../../subscription-changes/plan-change-request';
import { planChangeMoney } from '../../subscription-changes/plan-change-money';
import { quotePlanChange } from '../../subscription-changes/quote-plan-change';

/** What POST /subscriptions/{id}/change-plan/preview answers (docs/api-behaviour.md §18). */
export interface PlanChangePreview {
  lines: NewInvoiceLine[];
  totals: InvoiceTotals;
  period: BillingPeriod;
  currency: string;
}

/**
 * What the same change-plan request would do now, changing nothing: quotePlanChange (the one
 * computation the change makes too) with the usage read instead of billed, and the money of its
 * lines as the invoice would have it (discount, the customer's balance, amount due, credit to the
 * balance). No lines and zeros when the change makes no invoice. Errors as the change's.
 */
export async function previewPlanChange(
  deps: BillingDeps,
  scope: ProjectScope,
  command: Omit<PlanChangeCommand, 'idempotencyKey'>,
): Promise<PlanChangePreview> {
  const subscription = await deps.subscriptions.get(scope, command.subscriptionId);
  const now = await deps.clocks.now(scope);
  const quote = await quotePlanChange(deps, subscription, planChangeRequestOf(command), now, {});
  const { lines, totals } = await planChangeMoney(deps, subscription, quote);
  return { lines, totals, period: quote.period, currency: subscription.currency };
}
