import type { PlanSnapshot } from '../domain/checkout-completion';
import type { PlanChangeRequest, ProrationBehavior } from '../domain/plan-change';

/** A plan change as the API asks for it: what change-plan makes and its preview quotes. */
export interface PlanChangeCommand {
  subscriptionId: string;
  /** The new plan as catalog has it now (the gateway refused an inactive one). */
  plan: PlanSnapshot;
  proration: ProrationBehavior;
  atPeriodEnd: boolean;
  /** The caller's Idempotency-Key: a retry with it finds the change (and the one charge) it made. */
  idempotencyKey?: string;
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
    taxRateIds: command.plan.taxRateIds,
  },
  proration: command.proration,
  atPeriodEnd: command.atPeriodEnd,
});
