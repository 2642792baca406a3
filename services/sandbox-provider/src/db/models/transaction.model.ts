import { AutoIncrement, Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';
import type { TransactionChannel, TransactionStatus } from '../../domain/ledger';

@Table({ tableName: 'transactions' })
export class TransactionModel extends Model {
  @PrimaryKey
  @AutoIncrement
  @Column(bigintColumn('id'))
  override id!: number;

  @Column(DataType.TEXT)
  reference!: string;

  /** Integer minor units. */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  status!: TransactionStatus;

  @Column(DataType.TEXT)
  gatewayResponse!: string | null;

  /** Hosted-page payments only. */
  @Column(DataType.TEXT)
  accessCode!: string | null;

  @Column(DataType.TEXT)
  callbackUrl!: string | null;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  @Column(DataType.TEXT)
  authorizationCode!: string | null;

  @Column(DataType.TEXT)
  channel!: TransactionChannel;

  @Column(DataType.DATE)
  paidAt!: Date | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}

/** The columns as plain data: what a raw query reads back without building a model instance. */
export type TransactionRow = Pick<
  TransactionModel,
  | 'id'
  | 'reference'
  | 'amount'
  | 'currency'
  | 'email'
  | 'status'
  | 'gatewayResponse'
  | 'accessCode'
  | 'callbackUrl'
  | 'metadata'
  | 'authorizationCode'
  | 'channel'
  | 'paidAt'
  | 'createdAt'
>;
