import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';

@Table({ tableName: 'cancellation_policies' })
export class CancellationPolicyModel extends ProjectScopedModel {
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

  /** Minor units. */
  @Column(bigintColumn('cancellationFee'))
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
