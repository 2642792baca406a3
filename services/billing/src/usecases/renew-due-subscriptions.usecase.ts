import { QueryTypes, type Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import { SubscriptionModel } from '../db/models';
import { addBillingPeriods } from '../domain/periods';
import { nextStatus } from '../domain/subscription-status';
import { subscriptionEventData } from '../events/event-payloads';
import { applyChargeOutcome } from './apply-charge-outcome';
import type { BillingDeps } from './billing-deps';
import { chargeInvoice } from './charge-invoice.usecase';
import { openPeriodInvoice } from './invoice-period.usecase';
import { viewOf } from './subscription-views';

const DAY_MS = 24 * 60 * 60 * 1000;
/** subscription.trial_will_end goes out this long before the trial ends (contract 12). */
const TRIAL_WILL_END_MS = 3 * DAY_MS;

export interface BillingPassOptions {
  /** Only this project's work (a test clock's advance). */
  projectId?: string;
  batchSize?: number;
  /** Provider calls in flight at once. */
  concurrency?: number;
}

/**
 * The project's "now" in SQL: real time for live rows, real time + the project's test-clock
 * offset for test rows. $1 is the real time.
 */
const projectNow = (table: string) =>
  `($1::timestamptz + (CASE WHEN ${table}.livemode THEN 0 ELSE COALESCE(tc.offset_ms, 0) END) * interval '1 millisecond')`;

/** A subscription with a step due ($1 real now, $2 an optional project filter). */
const DUE_SUBSCRIPTION = `s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')
  AND ($2::uuid IS NULL OR s.project_id = $2::uuid)
  AND (
    (s.current_period_end <= ${projectNow('s')}
      AND (s.cancel_at_period_end
           OR (s.status IN ('ACTIVE', 'TRIALING')
               AND NOT EXISTS (SELECT 1 FROM invoices oi WHERE oi.subscription_id = s.id AND oi.status = 'OPEN'))))
    OR (s.status = 'TRIALING' AND s.trial_will_end_notified_at IS NULL
        AND s.trial_end - interval '3 days' <= ${projectNow('s')})
  )`;

/** An invoice whose charge (renewal or dunning retry) is due, of a subscription still billed. */
const DUE_INVOICE = `i.status = 'OPEN' AND i.next_payment_attempt IS NOT NULL
  AND i.next_payment_attempt <= ${projectNow('i')}
  AND s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE')
  AND ($2::uuid IS NULL OR i.project_id = $2::uuid)`;

/**
 * How much of a project's work is due or in flight, whoever holds it: unlike the claims, this
 * does not skip rows other replicas have locked, so a test clock's advance can wait for them.
 */
export async function dueWorkCount(deps: BillingDeps, projectId: string): Promise<number> {
  const [row] = await deps.sequelize.query<{ count: string }>(
    `SELECT (SELECT count(*) FROM subscriptions s LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
              WHERE ${DUE_SUBSCRIPTION})
          + (SELECT count(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
              LEFT JOIN test_clocks tc ON tc.project_id = i.project_id WHERE ${DUE_INVOICE})
          + (SELECT count(*) FROM payments p WHERE p.status = 'PENDING' AND p.invoice_id IS NOT NULL
              AND p.charge_started_at IS NOT NULL AND p.project_id = $2::uuid) AS count`,
    { bind: [deps.clock.now(), projectId], type: QueryTypes.SELECT },
  );
  return Number(row.count);
}

/**
 * One pass of the billing scheduler: the due step of each due subscription (period ends, trial
 * ends, trial_will_end notices), then the charges of every due invoice (renewals just opened and
 * dunning retries). Returns how much work it did, so callers can repeat until nothing is due.
 * Any number of replicas may run it at once: rows are claimed with FOR UPDATE SKIP LOCKED, a
 * period's invoice is UNIQUE, and a charge is claimed under its invoice's row lock.
 */
export async function runBillingPass(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  // Overlapped: charges of invoices opened by earlier steps run while the next batch steps.
  // A subscription is not stepped again while its invoice is OPEN, so its order holds.
  const [stepped, charged] = await Promise.all([stepDueSubscriptions(deps, options), chargeDueInvoices(deps, options)]);
  return stepped + charged;
}

/** Claims a batch of due subscriptions and takes ONE step of each (the earliest due), in one transaction. */
export async function stepDueSubscriptions(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 200;
  return deps.sequelize.transaction(async (transaction) => {
    const rows = await deps.sequelize.query<{ id: string; now: Date }>(
      `SELECT s.id, ${projectNow('s')} AS now
         FROM subscriptions s
         LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
        WHERE ${DUE_SUBSCRIPTION}
        ORDER BY s.project_id, s.current_period_end
        LIMIT $3
        FOR UPDATE OF s SKIP LOCKED`,
      {
        bind: [deps.clock.now(), options.projectId ?? null, batchSize],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    if (rows.length === 0) return 0;
    const subscriptions = await SubscriptionModel.findAll({ where: { id: rows.map((r) => r.id) }, transaction });
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    let done = 0;
    for (const row of rows) {
      const subscription = byId.get(row.id);
      if (!subscription) continue;
      try {
        // A savepoint per subscription: one failing step does not undo the batch's others.
        await deps.sequelize.transaction({ transaction }, (savepoint) =>
          stepSubscription(deps, subscription, new Date(row.now), savepoint),
        );
        done += 1;
      } catch (err) {
        deps.logger.error({ err, subscription_id: row.id }, 'billing step failed; retrying next pass');
      }
    }
    return done;
  });
}

/** The earliest due step of one (locked) subscription at the project's time `now`. */
async function stepSubscription(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  now: Date,
  transaction: Transaction,
): Promise<void> {
  const scope = { projectId: subscription.projectId, merchantId: '', livemode: subscription.livemode };
  const emit = async (type: string, at: Date, extra: Record<string, unknown> = {}) => {
    const view = await viewOf(subscription, transaction);
    await recordEvent(deps.sequelize, transaction, {
      type,
      data: { ...subscriptionEventData(subscription, view.customerEmail), ...extra },
      projectId: scope.projectId,
      livemode: scope.livemode,
      occurredAt: at,
    });
  };
  const trialEnd = subscription.trialEnd;
  // Only a trial's notice needs the flag, so only a trialing subscription reads it.
  const trialNoticeDue =
    subscription.status === 'TRIALING' && trialEnd && trialEnd.getTime() - TRIAL_WILL_END_MS <= now.getTime();
  const notified = trialNoticeDue
    ? await deps.sequelize.query<{ trial_will_end_notified_at: Date | null }>(
        'SELECT trial_will_end_notified_at FROM subscriptions WHERE id = $1',
        { bind: [subscription.id], transaction, type: QueryTypes.SELECT },
      )
    : [];
  if (trialNoticeDue && trialEnd && !notified[0]?.trial_will_end_notified_at) {
    const at = new Date(Math.max(trialEnd.getTime() - TRIAL_WILL_END_MS, subscription.createdAt.getTime()));
    await deps.sequelize.query('UPDATE subscriptions SET trial_will_end_notified_at = $2 WHERE id = $1', {
      bind: [subscription.id, at],
      transaction,
    });
    await emit('subscription.trial_will_end', at, { trial_end: trialEnd.toISOString() });
    return;
  }

  const periodEnd = subscription.currentPeriodEnd;
  if (periodEnd.getTime() > now.getTime()) return;
  const at = periodEnd;
  if (subscription.cancelAtPeriodEnd) {
    await subscription.update(
      {
        status: nextStatus(subscription.status, 'period_end_cancel'),
        cancelledAt: at,
        cancelledBy: subscription.cancelledBy ?? 'MERCHANT',
        updatedAt: at,
      },
      { transaction },
    );
    await emit('subscription.cancelled', at, { refund: null });
    return;
  }
  if (subscription.status !== 'ACTIVE' && subscription.status !== 'TRIALING') return;

  if (subscription.status === 'ACTIVE' && subscription.billingCycles !== null) {
    const [{ count }] = await deps.sequelize.query<{ count: string }>(
      'SELECT count(*) AS count FROM invoices WHERE subscription_id = $1',
      { bind: [subscription.id], transaction, type: QueryTypes.SELECT },
    );
    if (Number(count) >= subscription.billingCycles) {
      await subscription.update(
        { status: nextStatus(subscription.status, 'fixed_term_ended'), updatedAt: at },
        { transaction },
      );
      await emit('subscription.expired', at);
      return;
    }
  }

  // The next period: from this period's end to the next boundary counted from the anchor.
  const period = { start: periodEnd, end: nextBoundary(subscription, periodEnd) };
  // Due at once: the charge follows in this pass, or (after a crash) in the next one.
  await openPeriodInvoice(deps, subscription, period, at, transaction, at);
  await subscription.update(
    { currentPeriodStart: period.start, currentPeriodEnd: period.end, updatedAt: at },
    { transaction },
  );
}

/** The first period boundary after `after`, counted from the billing anchor (month-end clamping). */
function nextBoundary(subscription: SubscriptionModel, after: Date): Date {
  const { billingAnchor: anchor, interval, intervalCount } = subscription;
  const longest =
    (['daily', 'weekly'].includes(interval) ? (interval === 'daily' ? 1 : 7) : 31 * monthsOf(interval)) *
    DAY_MS *
    intervalCount;
  let n = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / longest));
  while (addBillingPeriods(anchor, interval, intervalCount, n).getTime() <= after.getTime()) n += 1;
  return addBillingPeriods(anchor, interval, intervalCount, n);
}

const monthsOf = (interval: string) =>
  ({ monthly: 1, quarterly: 3, biannually: 6, annually: 12 })[interval as 'monthly'] ?? 1;

/** Charges every due OPEN invoice (renewals and dunning retries) of a live subscription. */
export async function chargeDueInvoices(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 200;
  const concurrency = options.concurrency ?? 24;
  const due = await deps.sequelize.query<{ id: string; next_payment_attempt: Date; now: Date }>(
    `SELECT i.id, i.next_payment_attempt, ${projectNow('i')} AS now
       FROM invoices i
       JOIN subscriptions s ON s.id = i.subscription_id
       LEFT JOIN test_clocks tc ON tc.project_id = i.project_id
      WHERE ${DUE_INVOICE}
      ORDER BY i.next_payment_attempt
      LIMIT $3`,
    { bind: [deps.clock.now(), options.projectId ?? null, batchSize], type: QueryTypes.SELECT },
  );
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const row = due[next++];
      try {
        const result = await chargeInvoice(deps, row.id, {
          at: new Date(row.next_payment_attempt),
          onlyIfDueBy: new Date(row.now),
          skipLocked: true,
          onOutcome: (outcome, transaction) => applyChargeOutcome(deps, outcome, transaction),
        });
        if (!result.pending) done += 1;
      } catch (err) {
        deps.logger.error({ err, invoice_id: row.id }, 'invoice charge failed; retrying next pass');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  return done;
}
