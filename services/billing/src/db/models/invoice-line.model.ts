import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';
import type { ChargeLineType } from '../../domain/invoice-totals';

/** The charge lines, plus the DISCOUNT line (negative) a coupon adds (docs/api-behaviour.md §19). */
export type InvoiceLineType = ChargeLineType | 'DISCOUNT';

@Table({ tableName: 'invoice_lines' })
export class InvoiceLineModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  invoiceId!: string;

  /** Lines keep the order they were billed in. */
  @Column(DataType.INTEGER)
  position!: number;

  @Column(DataType.TEXT)
  type!: InvoiceLineType;

  @Column(DataType.TEXT)
  description!: string;

  /** An exact decimal (metered usage may be fractional); pg returns it as text, kept as text. */
  @Column(DataType.DECIMAL)
  quantity!: string;

  @Column(bigintColumn('unitAmount'))
  unitAmount!: number;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.DATE)
  periodStart!: Date;

  @Column(DataType.DATE)
  periodEnd!: Date;

  /** The tax rates that applied to the line: its invoice's (docs/api-behaviour.md §21). */
  @Column(DataType.ARRAY(DataType.UUID))
  taxRateIds!: string[];
}
