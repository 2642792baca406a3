import type { Transaction } from 'sequelize';
import { findInScope, findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { PlanModel } from '../models/plan.model';

export class PlanRepository {
  create(plan: Omit<PlanModel['_creationAttributes'], never> & Record<string, unknown>): Promise<PlanModel> {
    return PlanModel.create(plan);
  }

  get(scope: ProjectScope, id: string): Promise<PlanModel> {
    return findInScope(PlanModel, scope, id, 'Plan');
  }

  /**
   * The plan a checkout session sells, by id without a scope check: the session already belongs
   * to the plan's project. Fails when it is gone (plans are never deleted, only deactivated).
   */
  ofSession(planId: string, transaction?: Transaction): Promise<PlanModel> {
    return PlanModel.findByPk(planId, { transaction, rejectOnEmpty: true });
  }

  /** The merchant's edit of a plan's descriptive fields and default tax rates (its price never changes). */
  save(
    plan: PlanModel,
    changes: Partial<Pick<PlanModel, 'name' | 'description' | 'isActive' | 'metadata' | 'taxRateIds'>> & {
      updatedAt: Date;
    },
  ): Promise<PlanModel> {
    return plan.update(changes);
  }

  /** The plan stops being sold; subscriptions on it keep billing. */
  deactivate(plan: PlanModel, now: Date): Promise<PlanModel> {
    return plan.update({ isActive: false, updatedAt: now });
  }

  list(scope: ProjectScope, page: PageRequest, filter: { isActive?: boolean }): Promise<PlanModel[]> {
    return findPage(
      PlanModel,
      { ...scopeWhere(scope), ...(filter.isActive === undefined ? {} : { isActive: filter.isActive }) },
      page,
    );
  }
}
