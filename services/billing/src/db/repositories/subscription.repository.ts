import { QueryTypes, type Transaction, type WhereOptions } from 'sequelize';
import type { Model } from 'sequelize-typescript';
import { findInScope, findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import type { BillingPeriod, Interval } from '../../domain/periods';
import { discountColumns, type DiscountColumns, type SubscriptionDiscount } from '../../domain/subscription-discount';
import type { SubscriptionStatus } from '../../domain/subscription-status';
import { SubscriptionModel } from '../models';
import type { CancelledBy } from '../models/subscription.model';

/** A new subscription; its discount columns (§19) when it starts with a coupon. */
export interface NewSubscription extends Partial<DiscountColumns> {
  id: string;
  customerId: string;
  planId: string;
  planName: string;
  amount: number;
  currency: string;
  interval: Interval;
  intervalCount: number;
  usageUnitAmount: number | null;
  status: SubscriptionStatus;
  billingAnchor: Date;
  trialEnd: Date | null;
  billingCycles: number | null;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  metadata: Record<string, unknown>;
  checkoutSessionId: string | null;
  createdAt: Date;
  /** Default true; false for a checkout whose payer only typed an existing customer's e-mail (§20). */
  usesCustomerBalance?: boolean;
  /** Its own tax rates (§21); null or absent: its plan's. */
  taxRateIds?: string[] | null;
  /** Its plan's default rates as they are when it is made (§21). */
  planTaxRateIds: string[];
}

/** The columns of a plan change pending at the period's end (docs/api-behaviour.md §18). */
export type PendingPlanColumns = Pick<
  SubscriptionModel,
  | 'pendingPlanId'
  | 'pendingPlanName'
  | 'pendingAmount'
  | 'pendingInterval'
  | 'pendingIntervalCount'
  | 'pendingUsageUnitAmount'
  | 'pendingPlanTaxRateIds'
  | 'pendingPlanChangeAt'
>;

/** A subscription's own columns (not the model's methods, not its id or creation time). */
export type SubscriptionChanges = Partial<Omit<SubscriptionModel, keyof Model>> & { updatedAt: Date };

export interface SubscriptionFilter {
  status?: SubscriptionStatus;
  customerId?: string;
  planId?: string;
}

export class SubscriptionRepository {
  create(scope: ProjectScope, subscription: NewSubscription, transaction: Transaction): Promise<SubscriptionModel> {
    return SubscriptionModel.create(
      {
        ...subscription,
        projectId: scope.projectId,
        livemode: scope.livemode,
        cancelAtPeriodEnd: false,
        cancelledAt: null,
        cancelledBy: null,
        usesCustomerBalance: subscription.usesCustomerBalance ?? true,
        taxRateIds: subscription.taxRateIds ?? null,
        updatedAt: subscription.createdAt,
      },
      { transaction },
    );
  }

  /** Which of these subscriptions may spend their customer's balance (§20), in one query. */
  async balanceUsers(ids: string[], transaction?: Transaction): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await SubscriptionModel.findAll({
      where: { id: ids, usesCustomerBalance: true },
      attributes: ['id'],
      transaction,
    });
    return new Set(rows.map((row) => row.id));
  }

  findByCheckoutSession(checkoutSessionId: string, transaction?: Transaction): Promise<SubscriptionModel | null> {
    return SubscriptionModel.findOne({ where: { checkoutSessionId }, transaction });
  }

  /** The scope's subscription with this id, or null (an id chosen before the row was written). */
  find(scope: ProjectScope, id: string, transaction?: Transaction): Promise<SubscriptionModel | null> {
    return SubscriptionModel.findOne({
      where: { id, projectId: scope.projectId, livemode: scope.livemode },
      transaction,
    });
  }

  /** 404 unknown or of the other mode, 403 another project's (docs/api-behaviour.md §1). */
  get(scope: ProjectScope, id: string): Promise<SubscriptionModel> {
    return findInScope(SubscriptionModel, scope, id, 'Subscription');
  }

  /** The currency of a customer's first subscription, or null (a balance's default, §20). */
  async firstCurrencyOf(customerId: string, transaction?: Transaction): Promise<string | null> {
    const first = await SubscriptionModel.findOne({
      where: { customerId },
      attributes: ['id', 'currency'],
      order: [['createdAt', 'ASC']],
      transaction,
    });
    return first?.currency ?? null;
  }

  /** The row locked until commit: status changes of one subscription run one after the other. */
  lock(id: string, transaction: Transaction): Promise<SubscriptionModel | null> {
    return SubscriptionModel.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
  }

  /**
   * What usage ingestion needs of each of these subscriptions (owner, mode, status), by id; one
   * narrow query for a whole batch of records.
   */
  async usageTargets(ids: string[]): Promise<
    Map<
      string,
      {
        id: string;
        projectId: string;
        livemode: boolean;
        status: SubscriptionStatus;
        usageUnitAmount: number | null;
        parked: boolean;
      }
    >
  > {
    if (ids.length === 0) return new Map();
    const rows = await SubscriptionModel.sequelize!.query<{
      id: string;
      projectId: string;
      livemode: boolean;
      status: SubscriptionStatus;
      usageUnitAmount: string | null;
      parked: boolean;
    }>(
      `SELECT id, project_id AS "projectId", livemode, status, usage_unit_amount AS "usageUnitAmount",
              billing_parked_at IS NOT NULL AS parked
         FROM subscriptions WHERE id = ANY($1::uuid[])`,
      { bind: [ids], type: QueryTypes.SELECT },
    );
    return new Map(
      rows.map((row) => [
        row.id,
        { ...row, usageUnitAmount: row.usageUnitAmount === null ? null : Number(row.usageUnitAmount) },
      ]),
    );
  }

  /**
   * Takes a subscription's billing off the scheduler: its next step cannot be computed (its
   * period's usage comes to more than an invoice can hold, docs/api-behaviour.md §9), so it
   * waits for the merchant instead of failing every pass.
   */
  async parkBilling(id: string, reason: string, at: Date, transaction?: Transaction): Promise<void> {
    await SubscriptionModel.sequelize!.query(
      'UPDATE subscriptions SET billing_parked_at = $2, billing_parked_reason = $3 WHERE id = $1',
      { bind: [id, at, reason], transaction },
    );
  }

  /** Puts parked subscriptions back on the scheduler (their usage changed). */
  async unparkBilling(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await SubscriptionModel.sequelize!.query(
      `UPDATE subscriptions SET billing_parked_at = NULL, billing_parked_reason = NULL
        WHERE id = ANY($1::uuid[]) AND billing_parked_at IS NOT NULL`,
      { bind: [ids] },
    );
  }

  /** Several subscriptions locked FOR UPDATE, in id order (two batches never lock crosswise). */
  lockMany(ids: string[], transaction: Transaction): Promise<SubscriptionModel[]> {
    return SubscriptionModel.findAll({
      where: { id: ids },
      order: [['id', 'ASC']],
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
  }

  /** Several subscriptions by id (rows the caller has locked), in no particular order. */
  findMany(ids: string[], transaction?: Transaction): Promise<SubscriptionModel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return SubscriptionModel.findAll({ where: { id: ids }, transaction });
  }

  /** The trial_will_end notice of a trial was sent (it is sent once). */
  async markTrialWillEndNotified(id: string, at: Date, transaction: Transaction): Promise<void> {
    await SubscriptionModel.sequelize!.query('UPDATE subscriptions SET trial_will_end_notified_at = $2 WHERE id = $1', {
      bind: [id, at],
      transaction,
    });
  }

  /** Moves subscriptions into their next periods, in one UPDATE (a batch of renewals). */
  async startPeriods(periods: { id: string; start: Date; end: Date; at: Date }[], transaction: Transaction) {
    if (periods.length === 0) return;
    await SubscriptionModel.sequelize!.query(
      `UPDATE subscriptions s
          SET current_period_start = p.start_at, current_period_end = p.end_at, updated_at = p.at
         FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[]) AS p(id, start_at, end_at, at)
        WHERE s.id = p.id`,
      {
        bind: [
          periods.map((p) => p.id),
          periods.map((p) => p.start),
          periods.map((p) => p.end),
          periods.map((p) => p.at),
        ],
        transaction,
      },
    );
  }

  /**
   * A status move that changes nothing else (past due, out of past due, expired, back to active
   * by a void).
   */
  async setStatus(
    subscription: SubscriptionModel,
    status: SubscriptionStatus,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ status, updatedAt: at }, { transaction });
  }

  /** A pause begins: `pausedAt` is what a resume looks back to (an interrupted resume's invoice). */
  async pause(
    subscription: SubscriptionModel,
    status: SubscriptionStatus,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ status, pausedAt: at, updatedAt: at }, { transaction });
  }

  /** A resume's charge outcome ends the pause, into `status` (resumed or past due). */
  async endPause(
    subscription: SubscriptionModel,
    status: SubscriptionStatus,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ status, pausedAt: null, updatedAt: at }, { transaction });
  }

  /**
   * A resume starts billing again at `at`: the billing anchor moves there and the subscription
   * holds the period it opens. (Renewals move their periods with startPeriods.)
   */
  async restartBilling(
    subscription: SubscriptionModel,
    period: BillingPeriod,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update(
      { billingAnchor: at, currentPeriodStart: period.start, currentPeriodEnd: period.end, updatedAt: at },
      { transaction },
    );
  }

  /** A cancel asked for at the period's end: the subscription runs until then; `reason` is kept. */
  async scheduleCancel(
    subscription: SubscriptionModel,
    reason: string | null,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ cancelAtPeriodEnd: true, cancellationReason: reason, updatedAt: at }, { transaction });
  }

  /**
   * A cancel now asked for by the merchant or the customer: it replaces a cancel scheduled for the
   * period's end, and `reason` is kept.
   */
  async cancelNow(
    subscription: SubscriptionModel,
    cancel: { status: SubscriptionStatus; by: CancelledBy; reason: string | null },
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update(
      {
        status: cancel.status,
        cancelledAt: at,
        cancelledBy: cancel.by,
        cancelAtPeriodEnd: false,
        cancellationReason: cancel.reason,
        updatedAt: at,
      },
      { transaction },
    );
  }

  /** A cancel that takes effect by itself (a period-end cancel, dunning used up), by `by`. */
  async markCancelled(
    subscription: SubscriptionModel,
    status: SubscriptionStatus,
    by: CancelledBy,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ status, cancelledAt: at, cancelledBy: by, updatedAt: at }, { transaction });
  }

  /** The plan change pending at the period's end, or none (all null): the next renewal applies it. */
  async setPendingPlan(
    subscription: SubscriptionModel,
    pending: PendingPlanColumns,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ ...pending, updatedAt: at }, { transaction });
  }

  /** The discount the subscription's next invoices get (docs/api-behaviour.md §19); null: none. */
  async setDiscount(
    subscription: SubscriptionModel,
    discount: SubscriptionDiscount | null,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ ...discountColumns(discount), updatedAt: at }, { transaction });
  }

  /**
   * The tax rates the subscription's next invoices use (docs/api-behaviour.md §21): its own
   * (replacing its plan's; [] = no tax), or null: its plan's again. Issued invoices keep theirs.
   */
  async setTaxRates(
    subscription: SubscriptionModel,
    taxRateIds: string[] | null,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await subscription.update({ taxRateIds, updatedAt: at }, { transaction });
  }

  /** Writes a change whose columns vary with the case (a plan switch, with or without a new period). */
  async save(subscription: SubscriptionModel, changes: SubscriptionChanges, transaction: Transaction): Promise<void> {
    await subscription.update(changes, { transaction });
  }

  /**
   * How many periods each of these subscriptions has been billed for (billing_cycles counts
   * them, docs/api-behaviour.md §8): its invoices that bill a period with a SUBSCRIPTION line,
   * one per period start, VOID ones not counted. A plan change's proration invoice has no such
   * line, so a change never ends a fixed term early.
   */
  async billedPeriodCounts(ids: string[], transaction: Transaction): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await SubscriptionModel.sequelize!.query<{ subscription_id: string; count: string }>(
      `SELECT i.subscription_id, count(DISTINCT i.period_start) AS count FROM invoices i
        WHERE i.subscription_id = ANY($1::uuid[]) AND i.status <> 'VOID'
          AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id AND l.type = 'SUBSCRIPTION')
        GROUP BY 1`,
      { bind: [ids], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.subscription_id, Number(r.count)]));
  }

  /** One page of the scope's subscriptions, newest first. */
  list(scope: ProjectScope, page: PageRequest, filter: SubscriptionFilter): Promise<SubscriptionModel[]> {
    const where: Record<string, unknown> = { ...scopeWhere(scope) };
    if (filter.status) where.status = filter.status;
    if (filter.customerId) where.customerId = filter.customerId;
    if (filter.planId) where.planId = filter.planId;
    return findPage(SubscriptionModel, where as WhereOptions, page);
  }

  /** A customer's subscriptions, newest first (the customer-detail view). */
  listForCustomer(customerId: string): Promise<SubscriptionModel[]> {
    return SubscriptionModel.findAll({
      where: { customerId },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }
}
