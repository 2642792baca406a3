import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';
import type { CreditNoteDestination, CreditNoteReason } from '../../domain/credit-notes';

/** A credit note's tax as stored: one entry per rate of its invoice (minor units). */
export interface StoredRateAmount {
  tax_rate_id: string;
  amount: number;
}

/**
 * What a PAID invoice gave back (docs/api-behaviour.md §23): to the card (a refund) or to the
 * customer's balance (a ledger entry). Written once, never changed.
 */
@Table({ tableName: 'credit_notes' })
export class CreditNoteModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  invoiceId!: string;

  @Column(DataType.UUID)
  customerId!: string;

  /** `<invoice number>-CN<n>`, n from 1 per invoice. */
  @Column(DataType.TEXT)
  number!: string;

  /** Minor units, tax included: what the note credits. */
  @Column(bigintColumn('amount'))
  amount!: number;

  /** The invoice's currency. */
  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.JSONB)
  tax!: StoredRateAmount[];

  @Column(DataType.TEXT)
  reason!: CreditNoteReason;

  /**
   * The note of a second payment of the invoice, refunded (DUPLICATE, docs/api-behaviour.md §23):
   * it credits that payment, so it counts in none of the invoice's own limits.
   */
  @Column(DataType.BOOLEAN)
  creditsSecondPayment!: boolean;

  @Column(DataType.TEXT)
  refundTo!: CreditNoteDestination;

  /** The refund that carries a CARD note's money back; null for BALANCE. */
  @Column(DataType.UUID)
  refundId!: string | null;

  /** The balance entry of a BALANCE note; null for CARD. */
  @Column(DataType.UUID)
  balanceTransactionId!: string | null;

  @Column(DataType.TEXT)
  memo!: string | null;

  @Column(DataType.TEXT)
  status!: 'ISSUED';

  /** The project's time (a test clock's in test mode). */
  @Column(DataType.DATE)
  override createdAt!: Date;
}
