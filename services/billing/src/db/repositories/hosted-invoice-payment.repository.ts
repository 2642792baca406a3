import { Op, type Transaction } from 'sequelize';
import type { RowScope } from '@billing/platform';
import { HostedInvoicePaymentModel, type HostedInvoicePaymentState } from '../models/hosted-invoice-payment.model';

export interface NewHostedInvoicePayment {
  reference: string;
  invoiceId: string;
  amount: number;
  currency: string;
  createdAt: Date;
}

/** The payments the hosted invoice page started (docs/api-behaviour.md §22), until each is applied once. */
export class HostedInvoicePaymentRepository {
  async recordStart(scope: RowScope, payment: NewHostedInvoicePayment, transaction?: Transaction): Promise<void> {
    await HostedInvoicePaymentModel.create(
      { ...payment, ...scope, state: 'STARTED', checkedAt: payment.createdAt, settledAt: null },
      { transaction },
    );
  }

  find(reference: string): Promise<HostedInvoicePaymentModel | null> {
    return HostedInvoicePaymentModel.findByPk(reference);
  }

  /** Held until the caller's transaction ends: whoever applies it second finds it applied. */
  lock(reference: string, transaction: Transaction): Promise<HostedInvoicePaymentModel | null> {
    return HostedInvoicePaymentModel.findByPk(reference, { transaction, lock: transaction.LOCK.UPDATE });
  }

  async settle(
    reference: string,
    state: Exclude<HostedInvoicePaymentState, 'STARTED'>,
    at: Date,
    transaction?: Transaction,
  ): Promise<void> {
    // A payment the provider called failed is asked again when it comes back: only a payment
    // applied (PAID, REFUNDED) is final.
    await HostedInvoicePaymentModel.update(
      { state, settledAt: at, checkedAt: at },
      { where: { reference, state: ['STARTED', 'NOT_PAID'] }, transaction },
    );
  }

  /** The provider was asked now and had no final word: asked again after the others. */
  async markChecked(reference: string, at: Date): Promise<void> {
    await HostedInvoicePaymentModel.update({ checkedAt: at }, { where: { reference, state: 'STARTED' } });
  }

  /** STARTED payments not asked about since `checkedBefore`, the longest unasked first. */
  dueForCheck(checkedBefore: Date, limit: number): Promise<HostedInvoicePaymentModel[]> {
    return HostedInvoicePaymentModel.findAll({
      where: { state: 'STARTED', checkedAt: { [Op.lt]: checkedBefore } },
      order: [['checkedAt', 'ASC']],
      limit,
    });
  }
}
