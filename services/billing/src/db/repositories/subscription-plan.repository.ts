import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { PlanTerms } from '../../domain/plan-change';
import type { PlanInForce } from '../../domain/usage-windows';
import { SubscriptionPlanModel } from '../models';

/** The plans a subscription has had (subscription_plans, migration 0015). */
export class SubscriptionPlanRepository {
  /** Oldest first; [] for a subscription that never changed plan. */
  async history(subscriptionId: string, transaction?: Transaction): Promise<PlanInForce[]> {
    const rows = await SubscriptionPlanModel.findAll({
      where: { subscriptionId },
      order: [['inForceFrom', 'ASC']],
      transaction,
    });
    return rows.map((row) => ({
      from: row.inForceFrom,
      plan: {
        planId: row.planId,
        name: row.planName,
        amount: row.amount,
        interval: row.interval,
        intervalCount: row.intervalCount,
        usageUnitAmount: row.usageUnitAmount ?? null,
      },
    }));
  }

  /**
   * Records that `next` is in force from `at`, under the subscription's row lock. The first
   * change of a subscription also records the plan it replaces, in force from the subscription's
   * creation. Two changes at the same instant: the later one is the plan in force from then.
   */
  async recordChange(
    subscription: { id: string; createdAt: Date; planChangedAt: Date | null },
    previous: PlanTerms,
    next: PlanTerms,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    const row = (plan: PlanTerms, from: Date) => ({
      id: randomUUID(),
      subscriptionId: subscription.id,
      planId: plan.planId,
      planName: plan.name,
      amount: plan.amount,
      interval: plan.interval,
      intervalCount: plan.intervalCount,
      usageUnitAmount: plan.usageUnitAmount,
      inForceFrom: from,
      createdAt: at,
    });
    if (!subscription.planChangedAt) {
      await SubscriptionPlanModel.create(row(previous, subscription.createdAt), { transaction });
    }
    await SubscriptionPlanModel.bulkCreate([row(next, at)], {
      transaction,
      updateOnDuplicate: ['planId', 'planName', 'amount', 'interval', 'intervalCount', 'usageUnitAmount', 'createdAt'],
      conflictAttributes: ['subscriptionId', 'inForceFrom'],
    });
  }
}
