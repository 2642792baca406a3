import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import { RefundModel, type RefundReason } from '../models/refund.model';

export interface NewRefund {
  id: string;
  reference: string;
  paymentId: string;
  transactionReference: string;
  invoiceId: string | null;
  subscriptionId: string | null;
  amount: number;
  currency: string;
  reason: RefundReason;
  createdAt: Date;
}

export class RefundRepository {
  /** Records the decision to refund (PENDING); it is issued after the deciding transaction commits. */
  create(scope: ProjectScope, refund: NewRefund, transaction: Transaction): Promise<RefundModel> {
    return RefundModel.create(
      {
        ...refund,
        projectId: scope.projectId,
        livemode: scope.livemode,
        status: 'PENDING',
        providerRefundId: null,
        failureReason: null,
        processedAt: null,
        updatedAt: refund.createdAt,
      },
      { transaction },
    );
  }

  /** Refunds of a subscription still waiting to be issued. */
  listPendingForSubscription(subscriptionId: string): Promise<RefundModel[]> {
    return RefundModel.findAll({ where: { subscriptionId, status: 'PENDING' }, order: [['createdAt', 'ASC']] });
  }

  /**
   * Takes the refund for issuing: one atomic PENDING -> PROCESSING update, so of any number of
   * concurrent callers (replicas, a repeated request) exactly one talks to the provider.
   */
  async claim(id: string, now: Date): Promise<boolean> {
    const [count] = await RefundModel.update(
      { status: 'PROCESSING', updatedAt: now },
      { where: { id, status: 'PENDING' } },
    );
    return count === 1;
  }

  async markProcessed(id: string, providerRefundId: string, now: Date): Promise<void> {
    await RefundModel.update(
      { status: 'PROCESSED', providerRefundId, processedAt: now, updatedAt: now },
      { where: { id, status: 'PROCESSING' } },
    );
  }

  async markFailed(id: string, reason: string, now: Date): Promise<void> {
    await RefundModel.update(
      { status: 'FAILED', failureReason: reason, updatedAt: now },
      { where: { id, status: 'PROCESSING' } },
    );
  }

  /** The provider could not be reached: the refund goes back to the queue for the next attempt. */
  async release(id: string, now: Date): Promise<void> {
    await RefundModel.update({ status: 'PENDING', updatedAt: now }, { where: { id, status: 'PROCESSING' } });
  }
}
