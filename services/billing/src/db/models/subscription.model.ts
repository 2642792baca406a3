import Decimal from 'decimal.js';
import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel } from '@billing/platform';
import type { DiscountDuration } from '../../domain/subscription-discount';
import type { Interval } from '../../domain/periods';
import type { SubscriptionStatus } from '../../domain/subscription-status';

export type CancelledBy = 'MERCHANT' | 'CUSTOMER' | 'SYSTEM';

@Table({ tableName: 'subscriptions' })
export class SubscriptionModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.UUID)
  planId!: string;

  // The plan as it was sold (snapshot).
  @Column(DataType.TEXT)
  planName!: string;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  /** False for a checkout whose payer only typed an existing customer's e-mail (§20). */
  @Column(DataType.BOOLEAN)
  usesCustomerBalance!: boolean;

  /** When the scheduler parked it: its next step cannot be computed (§9); null when not parked. */
  @Column(DataType.DATE)
  billingParkedAt!: Date | null;

  @Column(DataType.TEXT)
  interval!: Interval;

  @Column(DataType.INTEGER)
  intervalCount!: number;

  @Column(bigintColumn('usageUnitAmount'))
  usageUnitAmount!: number | null;

  @Column(DataType.TEXT)
  status!: SubscriptionStatus;

  /** Periods are counted from here (the start, or the trial's end: docs/api-behaviour.md §16.19). */
  @Column(DataType.DATE)
  billingAnchor!: Date;

  @Column(DataType.DATE)
  trialEnd!: Date | null;

  /** Fixed term: the number of paid periods; null = until cancelled. */
  @Column(DataType.INTEGER)
  billingCycles!: number | null;

  @Column(DataType.DATE)
  currentPeriodStart!: Date;

  @Column(DataType.DATE)
  currentPeriodEnd!: Date;

  @Column(DataType.BOOLEAN)
  cancelAtPeriodEnd!: boolean;

  @Column(DataType.DATE)
  cancelledAt!: Date | null;

  @Column(DataType.TEXT)
  cancelledBy!: CancelledBy | null;

  /** The words given on cancel (migration 0007). */
  @Column(DataType.TEXT)
  cancellationReason!: string | null;

  /** When the current pause began; null when not paused (migration 0007). */
  @Column(DataType.DATE)
  pausedAt!: Date | null;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  // A plan change asked for at the period's end (docs/api-behaviour.md §18, migration 0015): the
  // plan to bill from pendingPlanChangeAt (= current_period_end when asked); all null when none.
  @Column(DataType.UUID)
  pendingPlanId!: string | null;

  @Column(DataType.TEXT)
  pendingPlanName!: string | null;

  @Column(bigintColumn('pendingAmount'))
  pendingAmount!: number | null;

  @Column(DataType.TEXT)
  pendingInterval!: Interval | null;

  @Column(DataType.INTEGER)
  pendingIntervalCount!: number | null;

  @Column(bigintColumn('pendingUsageUnitAmount'))
  pendingUsageUnitAmount!: number | null;

  /** The pending plan's default tax rates (migration 0040). */
  @Column(DataType.ARRAY(DataType.UUID))
  pendingPlanTaxRateIds!: string[] | null;

  @Column(DataType.DATE)
  pendingPlanChangeAt!: Date | null;

  /** When the plan last changed; null = never (its plan history is then the plan it carries). */
  @Column(DataType.DATE)
  planChangedAt!: Date | null;

  @Column(DataType.UUID)
  checkoutSessionId!: string | null;

  /**
   * The subscription's own tax rates, in the order its invoices show them (docs/api-behaviour.md
   * §21, migration 0021); [] = no tax; null = its plan's.
   */
  @Column(DataType.ARRAY(DataType.UUID))
  taxRateIds!: string[] | null;

  /**
   * Its plan's default tax rates as they were when it was made or moved to that plan (§21,
   * migration 0040): its invoices' rates while taxRateIds is null.
   */
  @Column(DataType.ARRAY(DataType.UUID))
  planTaxRateIds!: string[];

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;

  // The discount (docs/api-behaviour.md §19, migration 0014): the coupon's terms at redemption;
  // none when discountCouponId is null. Read and written through domain/subscription-discount.ts.
  @Column(DataType.UUID)
  discountCouponId!: string | null;

  @Column(DataType.TEXT)
  discountCode!: string | null;

  /** numeric(5,2): pg returns "25.00"; the getter gives the canonical text ("25"). */
  @Column({
    type: DataType.DECIMAL(5, 2),
    get(this: SubscriptionModel) {
      const raw: unknown = this.getDataValue('discountPercentOff');
      return raw === null || raw === undefined ? null : new Decimal(String(raw)).toString();
    },
  })
  discountPercentOff!: string | null;

  @Column(bigintColumn('discountAmountOff'))
  discountAmountOff!: number | null;

  @Column(DataType.CHAR(3))
  discountCurrency!: string | null;

  @Column(DataType.TEXT)
  discountDuration!: DiscountDuration | null;

  /** Period invoices it still discounts; null for FOREVER. */
  @Column(DataType.INTEGER)
  discountPeriodsRemaining!: number | null;
}
