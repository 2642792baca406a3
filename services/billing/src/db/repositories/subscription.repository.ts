import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
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
