import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'plans' })
export class PlanModel extends Model {
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
  description!: string;

  /** Minor units; pg returns BIGINT as text, the getter makes it a safe integer. */
  @Column({
    type: DataType.BIGINT,
    get(this: PlanModel) {
      return Number(this.getDataValue('amount'));
    },
  })
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  interval!: string;

  @Column(DataType.INTEGER)
  intervalCount!: number;

  @Column(DataType.INTEGER)
  trialPeriodDays!: number;

  @Column({
    type: DataType.BIGINT,
    get(this: PlanModel) {
      const raw = this.getDataValue('usageUnitAmount');
      return raw === null || raw === undefined ? null : Number(raw);
    },
  })
  usageUnitAmount!: number | null;

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
