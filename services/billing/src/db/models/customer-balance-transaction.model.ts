import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { BalanceTransactionType } from '../../domain/customer-balance';
import { minorUnits } from './columns';

/** One change of a customer's balance (docs/api-behaviour.md §20), with the balance it left. */
@Table({ tableName: 'customer_balance_transactions' })
export class CustomerBalanceTransactionModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  type!: BalanceTransactionType;

  /** Signed minor units: positive grants credit, negative takes it (or an invoice uses it). */
  @Column(minorUnits('amount'))
  amount!: number;

  @Column(minorUnits('balanceAfter'))
  balanceAfter!: number;

  /** The balance's currency (docs/api-behaviour.md §20). */
  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  description!: string | null;

  /** The invoice that used the credit (APPLIED_TO_INVOICE) or whose proration gave it. */
  @Column(DataType.UUID)
  invoiceId!: string | null;

  /** The project's time (a test clock's in test mode). */
  @Column(DataType.DATE)
  override createdAt!: Date;
}
