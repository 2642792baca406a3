import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';
import type { Interval } from '../../domain/periods';

/**
 * A plan a subscription has had, in force from `inForceFrom` until the next row's (migration
 * 0015): what prices metered usage by its timestamp (docs/api-behaviour.md §18).
 */
@Table({ tableName: 'subscription_plans' })
export class SubscriptionPlanModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  subscriptionId!: string;

  @Column(DataType.UUID)
  planId!: string;

  @Column(DataType.TEXT)
  planName!: string;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.TEXT)
  interval!: Interval;

  @Column(DataType.INTEGER)
  intervalCount!: number;

  @Column(bigintColumn('usageUnitAmount'))
  usageUnitAmount!: number | null;

  @Column(DataType.DATE)
  inForceFrom!: Date;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
