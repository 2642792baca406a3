import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';
import type { CheckoutQuote, CheckoutStatus } from '../../domain/checkout-session';
import type { CouponSnapshot } from '../../domain/coupon-rules';

@Table({ tableName: 'checkout_sessions' })
export class CheckoutSessionModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  merchantId!: string;

  @Column(DataType.TEXT)
  code!: string;

  @Column(DataType.UUID)
  planId!: string;

  @Column(DataType.TEXT)
  status!: CheckoutStatus;

  @Column(DataType.TEXT)
  successUrl!: string | null;

  @Column(DataType.TEXT)
  cancelUrl!: string | null;

  @Column(DataType.TEXT)
  customerEmail!: string | null;

  /** True when the payer typed customerEmail on the hosted page (the merchant gave none). */
  @Column(DataType.BOOLEAN)
  customerEmailTypedByPayer!: boolean;

  @Column(DataType.TEXT)
  customerName!: string | null;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  @Column(DataType.UUID)
  customerId!: string | null;

  @Column(DataType.UUID)
  subscriptionId!: string | null;

  /** The latest provider transaction started from the hosted page. */
  @Column(DataType.TEXT)
  transactionReference!: string | null;

  @Column(DataType.DATE)
  expiresAt!: Date;

  @Column(DataType.DATE)
  completedAt!: Date | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  /** The hosted page offers a "Promotion code" field (migration 0005). */
  @Column(DataType.BOOLEAN)
  allowPromotionCodes!: boolean;

  /** The coupon redeemed for the session (redemption key checkoutRedemptionKey), its terms then. */
  @Column(DataType.JSONB)
  coupon!: CouponSnapshot | null;

  /** Its own tax rates (migration 0007); null: its plan's, planTaxRateIds. */
  @Column(DataType.ARRAY(DataType.UUID))
  taxRateIds!: string[] | null;

  /** Its plan's default rates when the session was made: what its page quoted with. */
  @Column(DataType.ARRAY(DataType.UUID))
  planTaxRateIds!: string[];

  /** Billing's quote of its first invoice, from its plan, coupon and rates (migration 0007). */
  @Column(DataType.JSONB)
  quote!: CheckoutQuote;

  /** The seller's name billing gave with the quote (migration 0008); null for older sessions. */
  @Column(DataType.TEXT)
  sellerName!: string | null;
}
