import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';

/**
 * ABANDONED_CHARGE: a first charge whose subscription was never created (settle-first-charges).
 * UNUSED_CHECKOUT_PAYMENT: a checkout payment that completed nothing (refund-unused-checkout-payment).
 * CREDIT_NOTE: a merchant's credit note to the card (docs/api-behaviour.md §23).
 * DUPLICATE_PAYMENT: a second payment of a paid invoice, given back with its note (§23).
 */
export type RefundReason =
  | 'VERIFICATION'
  | 'CANCELLATION'
  | 'ABANDONED_CHARGE'
  | 'UNUSED_CHECKOUT_PAYMENT'
  | 'CREDIT_NOTE'
  | 'DUPLICATE_PAYMENT';
/** PROCESSING = claimed by one caller that is talking to the provider right now. */
export type RefundStatus = 'PENDING' | 'PROCESSING' | 'PROCESSED' | 'FAILED';

@Table({ tableName: 'refunds' })
export class RefundModel extends ProjectScopedModel {
  /** Our idempotency key for the refund (one refund per reason and payment). */
  @Column(DataType.TEXT)
  reference!: string;

  @Column(DataType.UUID)
  paymentId!: string;

  /** The provider transaction refunded. */
  @Column(DataType.TEXT)
  transactionReference!: string;

  @Column(DataType.UUID)
  invoiceId!: string | null;

  @Column(DataType.UUID)
  subscriptionId!: string | null;

  /** The cancellation policy that decided a CANCELLATION refund; null for the others. */
  @Column(DataType.UUID)
  policyId!: string | null;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  reason!: RefundReason;

  @Column(DataType.TEXT)
  status!: RefundStatus;

  @Column(DataType.TEXT)
  providerRefundId!: string | null;

  /** Times handed to the provider (counted before each call); above 0, look before resending. */
  @Column(DataType.INTEGER)
  attempts!: number;

  @Column(DataType.TEXT)
  failureReason!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  /** Real time of the last status change (createdAt is the project's time, a test clock's in test mode). */
  @Column(DataType.DATE)
  override updatedAt!: Date;

  @Column(DataType.DATE)
  processedAt!: Date | null;
}
