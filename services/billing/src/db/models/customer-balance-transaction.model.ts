import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';
import type { BalanceTransactionType } from '../../domain/customer-balance';

/** One change of a customer's balance (docs/api-behaviour.md §20), with the balance it left. */
@Table({ tableName: 'customer_balance_transactions' })
export class CustomerBalanceTransactionModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  type!: BalanceTransactionType;

  /** Signed minor units: positive grants credit, negative takes it (or an invoice uses it). */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(bigintColumn('balanceAfter'))
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
