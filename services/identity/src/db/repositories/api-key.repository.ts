import { Op, QueryTypes, type Transaction } from 'sequelize';
import { ApiKeyModel } from '../models';

export interface NewApiKey {
  id: string;
  projectId: string;
  merchantId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  last4: string;
  isLive: boolean;
  createdAt: Date;
}

/** What a key verification needs, read in one indexed query. */
export interface KeyOwner {
  id: string;
  project_id: string;
  merchant_id: string;
  is_live: boolean;
  is_active: boolean;
  revoked_at: Date | null;
  last_used_at: Date | null;
  merchant_is_active: boolean;
}

export class ApiKeyRepository {
  create(key: NewApiKey, transaction: Transaction): Promise<ApiKeyModel> {
    return ApiKeyModel.create({ ...key, isActive: true }, { transaction });
  }

  findForMerchant(id: string, merchantId: string): Promise<ApiKeyModel | null> {
    return ApiKeyModel.findOne({ where: { id, merchantId } });
  }

  exists(id: string): Promise<boolean> {
    return ApiKeyModel.count({ where: { id } }).then((n) => n > 0);
  }

  listForMerchant(merchantId: string, projectId?: string): Promise<ApiKeyModel[]> {
    return ApiKeyModel.findAll({
      where: { merchantId, ...(projectId ? { projectId } : {}), revokedAt: { [Op.is]: null } },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }

  async findOwnerByHash(keyHash: string): Promise<KeyOwner | null> {
    const sequelize = ApiKeyModel.sequelize!;
    const rows = await sequelize.query<KeyOwner>(
      `SELECT k.id, k.project_id, k.merchant_id, k.is_live, k.is_active, k.revoked_at, k.last_used_at,
              m.is_active AS merchant_is_active
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
        WHERE k.key_hash = $1`,
      { bind: [keyHash], type: QueryTypes.SELECT },
    );
    return rows[0] ?? null;
  }

  /** Permanent: a revoked key never verifies again and can no longer be changed. */
  async revoke(key: ApiKeyModel, at: Date, transaction: Transaction): Promise<void> {
    await key.update({ revokedAt: at, isActive: false }, { transaction });
  }

  /** The merchant's switch for a key that is not revoked: an inactive key is refused until switched back on. */
  async setActive(key: ApiKeyModel, isActive: boolean, transaction: Transaction): Promise<void> {
    await key.update({ isActive }, { transaction });
  }

  async touchLastUsed(id: string, now: Date): Promise<void> {
    await ApiKeyModel.update({ lastUsedAt: now }, { where: { id } });
  }
}
