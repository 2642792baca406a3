import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';

/** PAID: it paid the invoice; REFUNDED: the invoice was paid or closed first; NOT_PAID: it failed. */
export type HostedInvoicePaymentState = 'STARTED' | 'PAID' | 'REFUNDED' | 'NOT_PAID';

/** A payment the hosted invoice page's "Pay" started at the provider (docs/api-behaviour.md §22). */
@Table({ tableName: 'hosted_invoice_payments', timestamps: false })
export class HostedInvoicePaymentModel extends Model {
  /** The provider's reference: what its callback names. */
  @PrimaryKey
  @Column(DataType.TEXT)
  reference!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.UUID)
  invoiceId!: string;

  /** The invoice's amount_due when "Pay" was pressed: what the provider was asked for. */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  state!: HostedInvoicePaymentState;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  checkedAt!: Date;

  @Column(DataType.DATE)
  settledAt!: Date | null;
}
