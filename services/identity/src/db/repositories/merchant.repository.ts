import { fn, col, where, type Transaction } from 'sequelize';
import type { SellerDetails } from '../../domain/seller-details';
import { MerchantModel } from '../models';

export interface NewMerchant {
  id: string;
  email: string;
  businessName: string;
  passwordHash: string;
  createdAt: Date;
}

export class MerchantRepository {
  create(merchant: NewMerchant, transaction: Transaction): Promise<MerchantModel> {
    return MerchantModel.create(
      { ...merchant, isActive: true, isVerified: false, updatedAt: merchant.createdAt },
      { transaction },
    );
  }

  findById(id: string): Promise<MerchantModel | null> {
    return MerchantModel.findByPk(id);
  }

  /**
   * The merchant as committed, its row locked for a change until the transaction ends: a
   * project being created meanwhile (lockForShare) waits, so it announces the changed seller.
   */
  lockForUpdate(id: string, transaction: Transaction): Promise<MerchantModel | null> {
    return MerchantModel.findByPk(id, { transaction, lock: transaction.LOCK.NO_KEY_UPDATE });
  }

  /** The merchant as committed, its row kept from changing until the transaction ends (see lockForUpdate). */
  lockForShare(id: string, transaction: Transaction): Promise<MerchantModel | null> {
    return MerchantModel.findByPk(id, { transaction, lock: transaction.LOCK.SHARE });
  }

  /** `email` must already be normalized (lower case). */
  findByEmail(email: string): Promise<MerchantModel | null> {
    return MerchantModel.findOne({ where: where(fn('lower', col('email')), email) });
  }

  /** The merchant's keys and tokens stop working; every record is kept (billing history must survive). */
  async deactivate(merchant: MerchantModel, now: Date, transaction: Transaction): Promise<void> {
    await merchant.update({ isActive: false, updatedAt: now }, { transaction });
  }

  async update(
    merchant: MerchantModel,
    changes: Partial<Pick<MerchantModel, 'businessName' | 'passwordHash' | 'isActive' | keyof SellerDetails>>,
    now: Date,
    transaction: Transaction,
  ): Promise<MerchantModel> {
    return merchant.update({ ...changes, updatedAt: now }, { transaction });
  }
}
