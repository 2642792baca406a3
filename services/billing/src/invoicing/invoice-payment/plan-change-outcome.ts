import type { Transaction } from 'sequelize';
import type { ChargeOutcome } from './charges';
import { hasEnded } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { switchPlan } from '../../subscription-changes/switch-plan';
import { markVoid } from '../mark-void';
import { refundChargeOfEndedSubscription } from './unwanted-charge-refund';

/**
 * What the outcome of a plan change's invoice does (docs/api-behaviour.md §18), in the
 * transaction that records it, however it came (the change's own charge, nothing to charge,
 * settlement of an outcome the change did not learn):
 *  - paid: the subscription moves to the new plan as of the change's moment (and, for another
 *    interval, onto the new period from then), with subscription.updated;
 *  - failed: nothing changes. The invoice is voided at once (no dunning: it is not a period the
 *    customer owes), the usage it billed is unbilled again and its credit returns to the balance.
 * A subscription cancelled or expired meanwhile keeps its plan, and the charge is refunded in full.
 */
export async function applyPlanChangeOutcome(
  deps: BillingDeps,
  outcome: ChargeOutcome,
  transaction: Transaction,
): Promise<void> {
  const { invoice } = outcome;
  const change = invoice.planChange!;
  const subscription = await deps.subscriptions.lock(invoice.subscriptionId, transaction);
  if (!subscription) return;
  if (!outcome.paid) {
    await deps.usage.unbill(invoice.id, transaction);
    await markVoid(deps, invoice, outcome.at, transaction);
    return;
  }
  if (hasEnded(subscription.status)) {
    // Ended (cancelled now) while the change's charge was in flight: its plan is kept and none
    // of the charge is (§10).
    await refundChargeOfEndedSubscription(deps, invoice, outcome.at, transaction);
    return;
  }
  const newPeriod = change.newPeriod && {
    start: new Date(change.newPeriod.start),
    end: new Date(change.newPeriod.end),
  };
  await switchPlan(deps, subscription, change.plan, new Date(change.at), transaction, { newPeriod });
}
