import type { Transaction, WhereOptions } from 'sequelize';
import { findInScope, findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import type { Interval } from '../../domain/periods';
import type { SubscriptionStatus } from '../../domain/subscription-status';
import { SubscriptionModel } from '../models';

export interface NewSubscription {
  id: string;
  customerId: string;
  planId: string;
  planName: string;
  amount: number;
  currency: string;
  interval: Interval;
  intervalCount: number;
  usageUnitAmount: number | null;
  status: SubscriptionStatus;
  billingAnchor: Date;
  trialEnd: Date | null;
  billingCycles: number | null;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  metadata: Record<string, unknown>;
  checkoutSessionId: string | null;
  createdAt: Date;
}

export interface SubscriptionFilter {
  status?: SubscriptionStatus;
  customerId?: string;
  planId?: string;
}

export class SubscriptionRepository {
  create(scope: ProjectScope, subscription: NewSubscription, transaction: Transaction): Promise<SubscriptionModel> {
    return SubscriptionModel.create(
      {
        ...subscription,
        projectId: scope.projectId,
        livemode: scope.livemode,
        cancelAtPeriodEnd: false,
        cancelledAt: null,
        cancelledBy: null,
        updatedAt: subscription.createdAt,
      },
      { transaction },
    );
  }

  findByCheckoutSession(checkoutSessionId: string, transaction?: Transaction): Promise<SubscriptionModel | null> {
    return SubscriptionModel.findOne({ where: { checkoutSessionId }, transaction });
  }

  /** 404 unknown or of the other mode, 403 another project's (contract section 1). */
  get(scope: ProjectScope, id: string): Promise<SubscriptionModel> {
    return findInScope(SubscriptionModel, scope, id, 'Subscription');
  }

  /** The row locked until commit: status changes of one subscription run one after the other. */
  lock(id: string, transaction: Transaction): Promise<SubscriptionModel | null> {
    return SubscriptionModel.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
  }

  /** One page of the scope's subscriptions, newest first. */
  list(scope: ProjectScope, page: PageRequest, filter: SubscriptionFilter): Promise<SubscriptionModel[]> {
    const where: Record<string, unknown> = { ...scopeWhere(scope) };
    if (filter.status) where.status = filter.status;
    if (filter.customerId) where.customerId = filter.customerId;
    if (filter.planId) where.planId = filter.planId;
    return findPage(SubscriptionModel, where as WhereOptions, page);
  }

  /** A customer's subscriptions, newest first (the customer-detail view). */
  listForCustomer(customerId: string): Promise<SubscriptionModel[]> {
    return SubscriptionModel.findAll({
      where: { customerId },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }
}
