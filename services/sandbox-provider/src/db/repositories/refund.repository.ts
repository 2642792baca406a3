import { Op, type Transaction } from 'sequelize';
import type { RefundStatus } from '../../domain/ledger';
import { RefundModel } from '../models';

export class RefundRepository {
  /** What earlier refunds (all but failed ones) took from this transaction. */
  async totalFor(transactionReference: string, transaction?: Transaction): Promise<number> {
    const total = await RefundModel.sum('amount', {
      where: { transactionReference, status: { [Op.ne]: 'failed' satisfies RefundStatus } },
      transaction,
    });
    return Number(total ?? 0);
  }

  create(
    refund: {
      transactionReference: string;
      amount: number;
      status: RefundStatus;
      merchantNote: string | null;
      createdAt: Date;
    },
    transaction?: Transaction,
  ): Promise<RefundModel> {
    return RefundModel.create({ ...refund }, { transaction });
  }

  /** Oldest first; refunds of the given transactions, or every refund when `references` is undefined. */
  list(references?: string[]): Promise<RefundModel[]> {
    return RefundModel.findAll({
      where: references ? { transactionReference: { [Op.in]: references } } : {},
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
  }
}
