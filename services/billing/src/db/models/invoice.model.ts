import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { StoredPlanChange } from '../../domain/plan-change';
import { minorUnits } from './columns';

export type InvoiceStatus = 'DRAFT' | 'OPEN' | 'PAID' | 'VOID' | 'UNCOLLECTIBLE';

@Table({ tableName: 'invoices' })
export class InvoiceModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  /** INV-000042, per project and mode. */
  @Column(DataType.TEXT)
  number!: string;

  @Column(DataType.UUID)
  subscriptionId!: string;

  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  status!: InvoiceStatus;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(minorUnits('subtotal'))
  subtotal!: number;

  @Column(minorUnits('amount'))
  amount!: number;

  @Column(minorUnits('amountPaid'))
  amountPaid!: number;

  @Column(minorUnits('amountRefunded'))
  amountRefunded!: number;

  @Column(DataType.DATE)
  periodStart!: Date;

  @Column(DataType.DATE)
  periodEnd!: Date;

  @Column(DataType.DATE)
  dueDate!: Date;

  @Column(DataType.DATE)
  paidAt!: Date | null;

  @Column(DataType.INTEGER)
  attemptCount!: number;

  @Column(DataType.DATE)
  nextPaymentAttempt!: Date | null;

  @Column(DataType.TEXT)
  transactionReference!: string | null;

  /** The plan change this invoice pays for, applied when it is paid (docs/api-behaviour.md §18); else null. */
  @Column(DataType.JSONB)
  planChange!: StoredPlanChange | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
