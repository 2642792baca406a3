import { Op, type Transaction } from 'sequelize';
import type { RowScope } from '@billing/platform';
import { CardUpdateModel, type CardUpdateState } from '../models/card-update.model';

export interface NewCardUpdate {
  reference: string;
  customerId: string;
  subscriptionId: string;
  amount: number;
  currency: string;
  createdAt: Date;
}

/** The card updates the customer portal started (docs/api-behaviour.md §20), until each is applied once. */
export class CardUpdateRepository {
  async recordStart(scope: RowScope, update: NewCardUpdate): Promise<void> {
    await CardUpdateModel.create({
      ...update,
      ...scope,
      state: 'STARTED',
      checkedAt: update.createdAt,
      settledAt: null,
    });
  }

  find(reference: string): Promise<CardUpdateModel | null> {
    return CardUpdateModel.findByPk(reference);
  }

  /** Held until the caller's transaction ends: whoever applies it second finds it applied. */
  lock(reference: string, transaction: Transaction): Promise<CardUpdateModel | null> {
    return CardUpdateModel.findByPk(reference, { transaction, lock: transaction.LOCK.UPDATE });
  }

  /**
   * UPDATED is final. NOT_PAID is not: a payer may still pay at the provider after a decline (a
   * second card on the same page), so a NOT_PAID update is asked again when it comes back.
   * Answers whether this call moved it.
   */
  async settle(
    reference: string,
    state: Exclude<CardUpdateState, 'STARTED'>,
    at: Date,
    transaction?: Transaction,
  ): Promise<boolean> {
    const [moved] = await CardUpdateModel.update(
      { state, settledAt: at, checkedAt: at },
      { where: { reference, state: ['STARTED', 'NOT_PAID'] }, transaction },
    );
    return moved === 1;
  }

  /** The provider was asked now and had no final word: asked again after the others. */
  async markChecked(reference: string, at: Date): Promise<void> {
    await CardUpdateModel.update({ checkedAt: at }, { where: { reference, state: 'STARTED' } });
  }

  /** STARTED updates not asked about since `checkedBefore`, the longest unasked first. */
  dueForCheck(checkedBefore: Date, limit: number): Promise<CardUpdateModel[]> {
    return CardUpdateModel.findAll({
      where: { state: 'STARTED', checkedAt: { [Op.lt]: checkedBefore } },
      order: [['checkedAt', 'ASC']],
      limit,
    });
  }
}
