import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';

@Table({ tableName: 'plans' })
export class PlanModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  name!: string;

  @Column(DataType.TEXT)
  description!: string;

  /** Minor units. */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  interval!: string;

  @Column(DataType.INTEGER)
  intervalCount!: number;

  @Column(DataType.INTEGER)
  trialPeriodDays!: number;

  @Column(bigintColumn('usageUnitAmount'))
  usageUnitAmount!: number | null;

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  /** The default tax rates of its subscriptions, in order (docs/api-behaviour.md §21, migration 0007). */
  @Column(DataType.ARRAY(DataType.UUID))
  taxRateIds!: string[];

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
