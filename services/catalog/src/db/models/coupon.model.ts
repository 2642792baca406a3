import Decimal from 'decimal.js';
import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';
import type { CouponDuration } from '../../domain/coupon-rules';

@Table({ tableName: 'coupons' })
export class CouponModel extends ProjectScopedModel {
  /** Upper case. */
  @Column(DataType.TEXT)
  code!: string;

  @Column(DataType.TEXT)
  name!: string | null;

  /** numeric(5,2): pg returns "12.50"; the getter gives the canonical text ("12.5"). */
  @Column({
    type: DataType.DECIMAL(5, 2),
    get(this: CouponModel) {
      const raw: unknown = this.getDataValue('percentOff');
      return raw === null || raw === undefined ? null : new Decimal(String(raw)).toString();
    },
  })
  percentOff!: string | null;

  /** Minor units of `currency`. */
  @Column(bigintColumn('amountOff'))
  amountOff!: number | null;

  @Column(DataType.CHAR(3))
  currency!: string | null;

  @Column(DataType.TEXT)
  duration!: CouponDuration;

  @Column(DataType.INTEGER)
  durationInPeriods!: number | null;

  @Column(DataType.INTEGER)
  maxRedemptions!: number | null;

  @Column(DataType.INTEGER)
  timesRedeemed!: number;

  @Column(DataType.DATE)
  redeemBy!: Date | null;

  /** Empty = every plan of the project and mode. */
  @Column(DataType.ARRAY(DataType.UUID))
  planIds!: string[];

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
