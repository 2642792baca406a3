import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';

/**
 * UNUSED_CHECKOUT: a checkout payment that completed nothing (a second Pay, or paid too late);
 * refunded. SECOND_INVOICE_PAYMENT: a payment of an invoice another payment had paid already
 * (a hosted "Pay" twice, a charge racing it); refunded. An invoice's one SUCCEEDED INVOICE
 * payment is the one that paid it.
 */
export type PaymentPurpose = 'INVOICE' | 'VERIFICATION' | 'UNUSED_CHECKOUT' | 'SECOND_INVOICE_PAYMENT';
export type PaymentStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One provider transaction billing acted on; `reference` is unique, so it is used once. */
@Table({ tableName: 'payments' })
export class PaymentModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  reference!: string;

  @Column(DataType.TEXT)
  purpose!: PaymentPurpose;

  /** Null for a checkout payment made after its session ended: no customer was created. */
  @Column(DataType.UUID)
  customerId!: string | null;

  /** The hosted checkout session the payment was made for. */
  @Column(DataType.UUID)
  checkoutSessionId!: string | null;

  @Column(DataType.UUID)
  invoiceId!: string | null;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  status!: PaymentStatus;

  @Column(DataType.TEXT)
  gatewayResponse!: string | null;

  /** What the provider said, for support and reconciliation. */
  @Column(DataType.JSONB)
  providerResponse!: Record<string, unknown>;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
