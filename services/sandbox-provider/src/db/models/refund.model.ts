import { AutoIncrement, Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';
import type { RefundStatus } from '../../domain/ledger';

@Table({ tableName: 'refunds' })
export class RefundModel extends Model {
  @PrimaryKey
  @AutoIncrement
  @Column(bigintColumn('id'))
  override id!: number;

  @Column(DataType.TEXT)
  transactionReference!: string;

  /** Integer minor units. */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.TEXT)
  status!: RefundStatus;

  /** The merchant's own words (Paystack's `merchant_note`); the platform's refund reference. */
  @Column(DataType.TEXT)
  merchantNote!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
