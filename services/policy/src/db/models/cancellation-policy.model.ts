import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'cancellation_policies' })
export class CancellationPolicyModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.TEXT)
  name!: string;

  @Column(DataType.TEXT)
  refundType!: string;

  /** Exact decimal text as pg returns NUMERIC ("33.33"); null unless PARTIAL. */
  @Column(DataType.DECIMAL(5, 2))
  refundPercentage!: string | null;

  @Column(DataType.INTEGER)
  refundWindowDays!: number;

  @Column(DataType.BOOLEAN)
  prorateRefund!: boolean;

  /** Minor units; pg returns BIGINT as text, the getter makes it a safe integer. */
  @Column({
    type: DataType.BIGINT,
    get(this: CancellationPolicyModel) {
      return Number(this.getDataValue('cancellationFee'));
    },
  })
  cancellationFee!: number;

  @Column(DataType.BOOLEAN)
  applyToExisting!: boolean;

  @Column(DataType.BOOLEAN)
  isDefault!: boolean;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
