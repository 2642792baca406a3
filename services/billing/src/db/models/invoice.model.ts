import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
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

  /** The DISCOUNT line's amount as a positive number (0 when none); amount = subtotal - discount. */
  @Column(minorUnits('discount'))
  discount!: number;

  /** subtotal - discount; below 0 only for a downgrade's proration (its credit went to the balance). */
  @Column(minorUnits('amount'))
  amount!: number;

  /** The customer's balance used on this invoice (docs/api-behaviour.md §20). */
  @Column(minorUnits('creditApplied'))
  creditApplied!: number;

  /** amount - credit_applied (never below 0): what the card is charged. 0 is PAID without a charge. */
  @Column(minorUnits('amountDue'))
  amountDue!: number;

  /** What the card paid: amount_due once PAID (credit is not part of it, nor refunded). */
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

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
