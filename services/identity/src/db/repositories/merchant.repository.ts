import { fn, col, where, type Transaction } from 'sequelize';
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
    changes: Partial<Pick<MerchantModel, 'businessName' | 'passwordHash' | 'isActive'>>,
    now: Date,
  ): Promise<MerchantModel> {
    return merchant.update({ ...changes, updatedAt: now });
  }
}
