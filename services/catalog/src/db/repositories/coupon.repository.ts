import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize';
import { DomainError, findInScope, findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { CouponModel } from '../models/coupon.model';

export type NewCoupon = Pick<
  CouponModel,
  | 'id'
  | 'projectId'
  | 'livemode'
  | 'code'
  | 'name'
  | 'percentOff'
  | 'amountOff'
  | 'currency'
  | 'duration'
  | 'durationInPeriods'
  | 'maxRedemptions'
  | 'redeemBy'
  | 'planIds'
  | 'createdAt'
  | 'updatedAt'
>;

export class CouponRepository {
  /** ALREADY_EXISTS (409) for a code the project and mode already have. */
  async create(coupon: NewCoupon): Promise<CouponModel> {
    try {
      return await CouponModel.create({ ...coupon, timesRedeemed: 0, isActive: true });
    } catch (err) {
      if (err instanceof UniqueConstraintError) {
        throw new DomainError('already_exists', `A coupon with the code ${coupon.code} already exists`);
      }
      throw err;
    }
  }

  get(scope: ProjectScope, id: string): Promise<CouponModel> {
    return findInScope(CouponModel, scope, id, 'Coupon');
  }

  list(scope: ProjectScope, page: PageRequest): Promise<CouponModel[]> {
    return findPage(CouponModel, scopeWhere(scope), page);
  }

  /** No new redemptions from now on; the discounts already given keep running. */
  deactivate(coupon: CouponModel, now: Date): Promise<CouponModel> {
    return coupon.update({ isActive: false, updatedAt: now });
  }

  /** Reads the coupon again in the caller's transaction, to see what another redemption or a deactivation left. */
  refresh(coupon: CouponModel, transaction: Transaction): Promise<CouponModel> {
    return coupon.reload({ transaction });
  }

  /** By its upper-case code in the project and mode. */
  findByCode(scope: ProjectScope, code: string, transaction?: Transaction): Promise<CouponModel | null> {
    return CouponModel.findOne({ where: { ...scopeWhere(scope), code }, transaction });
  }

  /**
   * Claims `key` for the coupon: true when this call wrote the redemption row. A concurrent
   * claim of the same key waits here for the other transaction, then finds its row.
   */
  async claimRedemption(
    couponId: string,
    scope: ProjectScope,
    key: string,
    id: string,
    now: Date,
    transaction: Transaction,
  ): Promise<boolean> {
    const rows = await CouponModel.sequelize!.query<{ id: string }>(
      `INSERT INTO coupon_redemptions (id, coupon_id, project_id, livemode, redemption_key, status, created_at)
       VALUES ($1, $2, $3, $4, $5, 'ACTIVE', $6)
       ON CONFLICT (coupon_id, redemption_key) DO NOTHING
       RETURNING id`,
      { bind: [id, couponId, scope.projectId, scope.livemode, key, now], type: QueryTypes.SELECT, transaction },
    );
    return rows.length === 1;
  }

  /** The key's redemption of the coupon, locked until the transaction ends. */
  async lockRedemption(couponId: string, key: string, transaction: Transaction): Promise<'ACTIVE' | 'RELEASED' | null> {
    const [row] = await CouponModel.sequelize!.query<{ status: 'ACTIVE' | 'RELEASED' }>(
      `SELECT status FROM coupon_redemptions WHERE coupon_id = $1 AND redemption_key = $2 FOR UPDATE`,
      { bind: [couponId, key], type: QueryTypes.SELECT, transaction },
    );
    return row?.status ?? null;
  }

  async reactivateRedemption(couponId: string, key: string, transaction: Transaction): Promise<void> {
    await CouponModel.sequelize!.query(
      `UPDATE coupon_redemptions SET status = 'ACTIVE', released_at = NULL WHERE coupon_id = $1 AND redemption_key = $2`,
      { bind: [couponId, key], transaction },
    );
  }

  /**
   * Counts one redemption: a single conditional UPDATE, so that however many transactions race,
   * times_redeemed stops at max_redemptions (each waits for the row lock of the one before and
   * re-checks the condition on the row it then sees). Returns the coupon as counted, or null
   * when it is exhausted or was deactivated meanwhile.
   */
  async countRedemption(couponId: string, now: Date, transaction: Transaction): Promise<CouponModel | null> {
    const rows = await CouponModel.sequelize!.query<{ id: string }>(
      `UPDATE coupons SET times_redeemed = times_redeemed + 1, updated_at = $2
        WHERE id = $1 AND is_active AND (max_redemptions IS NULL OR times_redeemed < max_redemptions)
        RETURNING id`,
      { bind: [couponId, now], type: QueryTypes.SELECT, transaction },
    );
    if (rows.length === 0) return null;
    return CouponModel.findByPk(couponId, { transaction });
  }

  /**
   * Gives back every active redemption made with `key` in the scope: the row becomes RELEASED
   * and its coupon's count goes down with it, in the caller's transaction. Returns how many.
   */
  async release(scope: ProjectScope, key: string, now: Date, transaction: Transaction): Promise<number> {
    const released = await CouponModel.sequelize!.query<{ coupon_id: string }>(
      `UPDATE coupon_redemptions SET status = 'RELEASED', released_at = $4
        WHERE project_id = $1 AND livemode = $2 AND redemption_key = $3 AND status = 'ACTIVE'
        RETURNING coupon_id`,
      { bind: [scope.projectId, scope.livemode, key, now], type: QueryTypes.SELECT, transaction },
    );
    for (const { coupon_id } of released) {
      await CouponModel.sequelize!.query(
        `UPDATE coupons SET times_redeemed = times_redeemed - 1, updated_at = $2 WHERE id = $1 AND times_redeemed > 0`,
        { bind: [coupon_id, now], transaction },
      );
    }
    return released.length;
  }
}
