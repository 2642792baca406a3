import Decimal from 'decimal.js';
import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { CouponDuration } from '../../domain/coupon-rules';

@Table({ tableName: 'coupons' })
export class CouponModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

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
  @Column({
    type: DataType.BIGINT,
    get(this: CouponModel) {
      const raw: unknown = this.getDataValue('amountOff');
      return raw === null || raw === undefined ? null : Number(raw);
    },
  })
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
