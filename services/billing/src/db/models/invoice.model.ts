import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';
import type { InvoiceBuyer, InvoiceSeller } from '../../domain/invoice-parties';
import type { TaxAmount } from '../../domain/invoice-totals';
import type { StoredPlanChange } from '../../domain/plan-change';

export type InvoiceStatus = 'DRAFT' | 'OPEN' | 'PAID' | 'VOID' | 'UNCOLLECTIBLE';

@Table({ tableName: 'invoices' })
export class InvoiceModel extends ProjectScopedModel {
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

  @Column(bigintColumn('subtotal'))
  subtotal!: number;

  /** The DISCOUNT line's amount as a positive number (0 when none). */
  @Column(bigintColumn('discount'))
  discount!: number;

  /** The sum of the per-rate tax amounts (docs/api-behaviour.md §21). */
  @Column(bigintColumn('tax'))
  tax!: number;

  /** subtotal - discount - the inclusive taxes. */
  @Column(bigintColumn('totalExcludingTax'))
  totalExcludingTax!: number;

  /**
   * The invoice total: subtotal - discount + the exclusive taxes (= total_excluding_tax + tax);
   * below 0 only for a downgrade's proration (its credit went to the balance).
   */
  @Column(bigintColumn('amount'))
  amount!: number;

  /** One entry per rate, the rate as it was when the invoice was made (§21). */
  @Column(DataType.JSONB)
  totalTaxAmounts!: TaxAmount[];

  /** "Reverse charge" for a reverse-charge customer's invoice, else null. */
  @Column(DataType.TEXT)
  taxNote!: string | null;

  /** The customer's balance used on this invoice (docs/api-behaviour.md §20). */
  @Column(bigintColumn('creditApplied'))
  creditApplied!: number;

  /** amount - credit_applied (never below 0): what the card is charged. 0 is PAID without a charge. */
  @Column(bigintColumn('amountDue'))
  amountDue!: number;

  /** What the card paid: amount_due once PAID (credit is not part of it, nor refunded). */
  @Column(bigintColumn('amountPaid'))
  amountPaid!: number;

  @Column(bigintColumn('amountRefunded'))
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

  /**
   * The seller and the buyer as they were when the invoice was created (docs/api-behaviour.md
   * §22), never changed afterwards; null on invoices created before billing kept them.
   */
  @Column(DataType.JSONB)
  seller!: InvoiceSeller | null;

  @Column(DataType.JSONB)
  buyer!: InvoiceBuyer | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
