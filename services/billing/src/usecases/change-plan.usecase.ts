import type { Transaction } from 'sequelize';
import { DomainError, type ProjectScope } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { PlanSnapshot } from '../domain/checkout-completion';
import type { PlanChangeRequest, ProrationBehavior } from '../domain/plan-change';
import type { BillingDeps } from './billing-deps';
import type { InvoiceView } from './invoice-views';
import { quotePlanChange } from './quote-plan-change';
import { changeSubscription, viewOf, type SubscriptionView } from './subscription-views';
import { pendingColumns, recordSubscriptionUpdated, switchPlan } from './switch-plan';

export interface PlanChangeCommand {
  subscriptionId: string;
  /** The new plan as catalog has it now (the gateway refused an inactive one). */
  plan: PlanSnapshot;
  proration: ProrationBehavior;
  atPeriodEnd: boolean;
  /** The caller's Idempotency-Key: a retry with it finds the change (and the one charge) it made. */
  idempotencyKey?: string;
}

export interface PlanChangeResult {
  view: SubscriptionView;
  /** The invoice the change made (proration, or a new period's); null when it made none. */
  invoice: InvoiceView | null;
}

/** The request the rules read (docs/api-behaviour.md §18). */
export const planChangeRequestOf = (command: Omit<PlanChangeCommand, 'idempotencyKey'>): PlanChangeRequest => ({
  plan: {
    planId: command.plan.planId,
    name: command.plan.name,
    amount: command.plan.amount,
    currency: command.plan.currency,
    interval: command.plan.interval,
    intervalCount: command.plan.intervalCount,
    usageUnitAmount: command.plan.usageUnitAmount,
  },
  proration: command.proration,
  atPeriodEnd: command.atPeriodEnd,
});

/** What the change's transaction decided, for what follows its commit. */
interface Decided {
  /** The invoice the change made; null when it made none. */
  invoiceId: string | null;
  /** A retry with the Idempotency-Key of an earlier change: answered from that change. */
  earlier: boolean;
}

/**
 * POST /subscriptions/{id}/change-plan (docs/api-behaviour.md §18). Under the subscription's row
 * lock (so a change and a renewal, or two changes, run one after the other and the renewal
 * scheduler skips the row meanwhile), quotePlanChange decides what the change does, the same
 * computation its preview makes:
 *  - at the period's end: the pending plan is stored (replacing any), or dropped for the current
 *    plan; the renewal at that moment applies it;
 *  - a trial, or NONE on the same interval: the plan changes now, no invoice;
 *  - otherwise an invoice (the proration, or a new period's) in the same transaction, charged
 *    right after commit; the plan changes only when it is paid (invoicePlanChange).
 * subscription.updated (with previous_plan_id) is recorded with each change of the row.
 */
export async function changePlan(
  deps: BillingDeps,
  scope: ProjectScope,
  command: PlanChangeCommand,
): Promise<PlanChangeResult> {
  const request = planChangeRequestOf(command);
  const key = command.idempotencyKey && ({ operation: 'change_plan', key: command.idempotencyKey } as const);
  const decided: Decided = { invoiceId: null, earlier: false };
  const view = await changeSubscription(deps, scope, command.subscriptionId, async (subscription, now, transaction) => {
    if (key) {
      const keyed = await deps.idempotencyKeys.claim(
        scope,
        {
          ...key,
          fingerprint: `${subscription.id}:${command.plan.planId}:${command.proration}:${command.atPeriodEnd}`,
          resource: { invoiceId: null as string | null },
        },
        deps.clock.now(),
        transaction,
      );
      if (!keyed.fresh) {
        Object.assign(decided, { earlier: true, invoiceId: keyed.resource.invoiceId });
        return;
      }
    }
    decided.invoiceId = await applyPlanChange(deps, subscription, request, now, transaction);
    if (key && decided.invoiceId) {
      await deps.idempotencyKeys.attach(scope, key, { invoiceId: decided.invoiceId }, transaction);
    }
  });
  if (!decided.invoiceId) return { view, invoice: null };
  throw new DomainError('unavailable', 'Plan changes that invoice are not available yet');
}

/** The change itself, in the transaction holding the subscription's lock; the invoice it made, if any. */
async function applyPlanChange(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  request: PlanChangeRequest,
  now: Date,
  transaction: Transaction,
): Promise<string | null> {
  const quote = await quotePlanChange(deps, subscription, request, now, { transaction });
  const { change } = quote;
  switch (change.kind) {
    case 'schedule':
      await subscription.update({ ...pendingColumns(change.plan, change.at), updatedAt: now }, { transaction });
      await recordSubscriptionUpdated(deps, subscription, subscription.planId, now, transaction);
      return null;
    case 'clear_pending':
      if (!subscription.pendingPlanId) return null;
      await subscription.update({ ...pendingColumns(null, null), updatedAt: now }, { transaction });
      await recordSubscriptionUpdated(deps, subscription, subscription.planId, now, transaction);
      return null;
    case 'swap':
      await switchPlan(deps, subscription, change.plan, now, transaction);
      return null;
    case 'invoice':
      throw new DomainError('unavailable', 'Plan changes that invoice are not available yet');
  }
}

/** The subscription as it is now (after the change's commit and charge). */
export async function currentView(deps: BillingDeps, scope: ProjectScope, id: string): Promise<SubscriptionView> {
  return viewOf(await deps.subscriptions.get(scope, id));
}
