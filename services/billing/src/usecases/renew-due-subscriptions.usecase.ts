import { QueryTypes, type Transaction } from 'sequelize';
import { recordEvent, recordEvents } from '@billing/platform';
import { InvoiceModel, SubscriptionModel } from '../db/models';
import { dueBillingStep, type BillingStep } from '../domain/billing-step';
import { nextStatus } from '../domain/subscription-status';
import { invoiceEventData, subscriptionEventData } from '../events/event-payloads';
import { applyChargeOutcome } from './apply-charge-outcome';
import type { BillingDeps } from './billing-deps';
import { claimInvoiceCharges, type ChargeClaim } from './charge-invoice.usecase';
import { createInvoices } from './invoice-money';
import { openPeriodInvoice, periodInvoiceDraft } from './invoice-period.usecase';
import { sendScheduledCharges } from './send-scheduled-charges.usecase';
import { viewOf } from './subscription-views';

export interface BillingPassOptions {
  /** Only this project's work (a test clock's advance). */
  projectId?: string;
  /**
   * Only this mode's work. The scheduler runs live and test mode apart (the test/live separation
   * in docs/events-and-test-mode.md), so a test-clock backlog never takes a live renewal's turn.
   */
  livemode?: boolean;
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

/**
 * The latest "now" of any row of a mode, for index range scans: projectNow depends on each row's
 * project, which no index can use, but test clocks only move forward, so no test row's now is
 * later than real time + the largest offset, and no live row's later than real time.
 */
const LATEST_TEST_NOW = `($1::timestamptz + (SELECT COALESCE(max(offset_ms), 0) FROM test_clocks) * interval '1 millisecond')`;
const dueBy = (column: string, table: string, ahead = '') =>
  `((${table}.livemode AND ${column} <= $1::timestamptz${ahead})
    OR (NOT ${table}.livemode AND ${column} <= ${LATEST_TEST_NOW}${ahead}))`;

/** Rows of one mode only, or of both; a literal, so the planner drops the other mode's bounds. */
const ofMode = (table: string, livemode: boolean | undefined) =>
  livemode === undefined ? '' : `AND ${livemode ? '' : 'NOT '}${table}.livemode`;

/**
 * A subscription with a step due ($1 real now, $2 an optional project filter). The dueBy bounds
 * restate the exact conditions in a form the subscriptions_due and subscriptions_trial_notice
 * indexes serve, so a poll reads the due rows, not the table.
 */
const dueSubscription = (livemode?: boolean) => `s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')
  AND ($2::uuid IS NULL OR s.project_id = $2::uuid) ${ofMode('s', livemode)}
  AND (
    (${dueBy('s.current_period_end', 's')}
      AND s.current_period_end <= ${projectNow('s')}
      AND (s.cancel_at_period_end
           OR (s.status IN ('ACTIVE', 'TRIALING')
               AND NOT EXISTS (SELECT 1 FROM invoices oi WHERE oi.subscription_id = s.id AND oi.status = 'OPEN'))))
    OR (s.status = 'TRIALING' AND s.trial_will_end_notified_at IS NULL
        AND ${dueBy('s.trial_end', 's', " + interval '3 days'")}
        AND s.trial_end - interval '3 days' <= ${projectNow('s')})
  )`;

/** An invoice whose charge (renewal or dunning retry) is due, of a subscription still billed. */
const dueInvoice = (livemode?: boolean) => `i.status = 'OPEN' AND i.next_payment_attempt IS NOT NULL
  AND ${dueBy('i.next_payment_attempt', 'i')}
  AND i.next_payment_attempt <= ${projectNow('i')}
  AND s.status IN ('ACTIVE', 'TRIALING', 'PAST_DUE')
  AND ($2::uuid IS NULL OR i.project_id = $2::uuid) ${ofMode('i', livemode)}`;

/**
 * How much of a project's test-mode work is due or in flight, whoever holds it: unlike the
 * claims, this does not skip rows other replicas have locked, so a test clock's advance can wait
 * for them.
 */
export async function dueTestWorkCount(deps: BillingDeps, projectId: string): Promise<number> {
  const [row] = await deps.sequelize.query<{ count: string }>(
    `SELECT (SELECT count(*) FROM subscriptions s LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
              WHERE ${dueSubscription(false)})
          + (SELECT count(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
              LEFT JOIN test_clocks tc ON tc.project_id = i.project_id WHERE ${dueInvoice(false)})
          + (SELECT count(*) FROM payments p WHERE p.status = 'PENDING' AND p.invoice_id IS NOT NULL
              AND p.charge_started_at IS NOT NULL AND p.project_id = $2::uuid AND NOT p.livemode) AS count`,
    { bind: [deps.clock.now(), projectId], type: QueryTypes.SELECT },
  );
  return Number(row.count);
}

/**
 * The scheduler's backlog in both modes (the scheduler_due_items metric): subscriptions with a
 * step due (period ends, trial ends and notices) and invoices whose charge is due (dunning retries).
 */
export async function dueWorkCounts(deps: BillingDeps): Promise<{ subscriptions: number; invoices: number }> {
  const [row] = await deps.sequelize.query<{ subscriptions: string; invoices: string }>(
    `SELECT (SELECT count(*) FROM subscriptions s LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
              WHERE ${dueSubscription()}) AS subscriptions,
            (SELECT count(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
              LEFT JOIN test_clocks tc ON tc.project_id = i.project_id WHERE ${dueInvoice()}) AS invoices`,
    { bind: [deps.clock.now(), null], type: QueryTypes.SELECT },
  );
  return { subscriptions: Number(row.subscriptions), invoices: Number(row.invoices) };
}

/**
 * One pass of the billing scheduler: the due step of each due subscription (period ends, trial
 * ends, trial_will_end notices), then the charges of every due invoice (renewals just opened and
 * dunning retries). Returns how much work it did, so callers can repeat until nothing is due.
 * Any number of replicas may run it at once: rows are claimed with FOR UPDATE SKIP LOCKED, a
 * period's invoice is UNIQUE, and a charge is claimed under its invoice's row lock.
 */
export async function runBillingPass(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  // Overlapped: dunning retries are charged while the period ends are stepped. A subscription is
  // not stepped again while its invoice is OPEN, so its order holds.
  const [stepped, charged] = await Promise.all([stepAndChargeDue(deps, options), chargeDueInvoices(deps, options)]);
  return stepped + charged;
}

/**
 * Steps due subscriptions batch after batch until none is due, one batch ahead of the charges:
 * batch k+1 is stepped while batch k's charges are with the provider, so neither the database
 * work nor the provider calls wait for the other. Batch k's charges are all answered before
 * batch k+1's are sent.
 */
async function stepAndChargeDue(deps: BillingDeps, options: BillingPassOptions): Promise<number> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  let done = 0;
  let charging: Promise<number> = Promise.resolve(0);
  for (;;) {
    let batch: Awaited<ReturnType<typeof stepDueSubscriptions>>;
    try {
      batch = await stepDueSubscriptions(deps, options);
    } finally {
      done += await charging;
    }
    done += batch.stepped;
    if (batch.stepped === 0 && batch.claims.length === 0) return done;
    charging = sendScheduledCharges(deps, batch.claims, concurrency);
  }
}

/**
 * Provider calls in flight at once, by default: as many as the provider client keeps connections
 * (ProviderHttp). Measured with the renewals benchmark: 64 -> 128 took it from ~1,000 to ~1,050/s.
 */
const DEFAULT_CONCURRENCY = 128;
const DEFAULT_BATCH_SIZE = 500;

/**
 * Claims a batch of due subscriptions and takes ONE step of each (the earliest due), in one
 * transaction. Plain renewals (the bulk of the work) are opened together and their charges
 * claimed in that same transaction; the caller sends those charges after commit. Other steps
 * run one by one, each in a savepoint so a failing one does not undo the others.
 */
export async function stepDueSubscriptions(
  deps: BillingDeps,
  options: BillingPassOptions = {},
): Promise<{ stepped: number; claims: ChargeClaim[] }> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  return deps.sequelize.transaction(async (transaction) => {
    const rows = await deps.sequelize.query<{ id: string; now: Date; trial_will_end_notified_at: Date | null }>(
      `SELECT s.id, s.trial_will_end_notified_at, ${projectNow('s')} AS now
         FROM subscriptions s
         LEFT JOIN test_clocks tc ON tc.project_id = s.project_id
        WHERE ${dueSubscription(options.livemode)}
        ORDER BY s.project_id, s.current_period_end
        LIMIT $3
        FOR UPDATE OF s SKIP LOCKED`,
      {
        bind: [deps.clock.now(), options.projectId ?? null, batchSize],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    if (rows.length === 0) return { stepped: 0, claims: [] };
    const subscriptions = await SubscriptionModel.findAll({ where: { id: rows.map((r) => r.id) }, transaction });
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    const invoiceCounts = await deps.subscriptions.invoiceCounts(
      subscriptions.filter((s) => s.billingCycles !== null).map((s) => s.id),
      transaction,
    );
    const plainRenewals: { subscription: SubscriptionModel; step: Extract<BillingStep, { kind: 'renew' }> }[] = [];
    let stepped = 0;
    for (const row of rows) {
      const subscription = byId.get(row.id);
      if (!subscription) continue;
      const step = dueBillingStep(
        { ...subscription.get(), trialWillEndNotifiedAt: row.trial_will_end_notified_at },
        new Date(row.now),
        invoiceCounts.get(subscription.id) ?? 0,
      );
      if (step.kind === 'none') continue;
      if (step.kind === 'renew' && !isMetered(subscription)) {
        plainRenewals.push({ subscription, step });
        continue;
      }
      try {
        await deps.sequelize.transaction({ transaction }, (savepoint) =>
          takeBillingStep(deps, subscription, step, savepoint),
        );
        stepped += 1;
      } catch (err) {
        deps.logger.error({ err, subscription_id: row.id }, 'billing step failed; retrying next pass');
      }
    }
    let claims: ChargeClaim[] = [];
    try {
      claims = await deps.sequelize.transaction({ transaction }, (savepoint) =>
        renewTogether(deps, plainRenewals, savepoint),
      );
      stepped += plainRenewals.length;
    } catch (err) {
      deps.logger.error({ err, renewals: plainRenewals.length }, 'renewal batch failed; retrying next pass');
    }
    return { stepped, claims };
  });
}

const isMetered = (subscription: SubscriptionModel) =>
  subscription.usageUnitAmount !== null && subscription.usageUnitAmount !== undefined;

/**
 * Plain renewals (no usage line) of locked subscriptions, together: their period invoices
 * (numbered, with the plan line, their money and invoice.created), their new periods, and their
 * charges claimed (an invoice the balance paid in full is PAID there, without a charge), in a
 * handful of statements however many there are.
 */
async function renewTogether(
  deps: BillingDeps,
  renewals: { subscription: SubscriptionModel; step: Extract<BillingStep, { kind: 'renew' }> }[],
  transaction: Transaction,
): Promise<ChargeClaim[]> {
  if (renewals.length === 0) return [];
  // Created off the schedule: their charges are claimed below in this same transaction, and a
  // claim takes its invoice off the schedule anyway (one UPDATE saved per renewal).
  // Their money as every invoice's (createInvoices): one query reads the batch's balances, and
  // only customers with credit get ledger work.
  const priced = await createInvoices(
    deps,
    renewals.map(({ subscription, step }) => periodInvoiceDraft(subscription, step.period, step.at, null)),
    transaction,
  );
  const invoices = priced.map((p) => p.invoice);
  const emails = await deps.customers.emailsOf([...new Set(invoices.map((i) => i.customerId))], transaction);
  await recordEvents(
    deps.sequelize,
    transaction,
    invoices.map((invoice) => ({
      type: 'invoice.created',
      data: invoiceEventData(invoice, emails.get(invoice.customerId) ?? ''),
      projectId: invoice.projectId,
      livemode: invoice.livemode,
      occurredAt: invoice.createdAt,
    })),
  );
  await deps.subscriptions.startPeriods(
    renewals.map(({ subscription, step }) => ({ id: subscription.id, ...step.period, at: step.at })),
    transaction,
  );
  const claimed = await claimInvoiceCharges(
    deps,
    invoices.map((invoice) => ({ invoice, at: invoice.createdAt })),
    transaction,
    (outcome, t) => applyChargeOutcome(deps, outcome, t),
  );
  return claimed.flatMap((c) => ('claim' in c ? [c.claim] : []));
}

/** One step of one (locked) subscription other than a plain renewal. */
async function takeBillingStep(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  step: Exclude<BillingStep, { kind: 'none' }>,
  transaction: Transaction,
): Promise<void> {
  const emit = async (type: string, at: Date, extra: Record<string, unknown> = {}) => {
    const view = await viewOf(subscription, transaction);
    await recordEvent(deps.sequelize, transaction, {
      type,
      data: { ...subscriptionEventData(subscription, view.customerEmail), ...extra },
      projectId: subscription.projectId,
      livemode: subscription.livemode,
      occurredAt: at,
    });
  };
  switch (step.kind) {
    case 'notify_trial_will_end':
      await deps.sequelize.query('UPDATE subscriptions SET trial_will_end_notified_at = $2 WHERE id = $1', {
        bind: [subscription.id, step.at],
        transaction,
      });
      await emit('subscription.trial_will_end', step.at, { trial_end: subscription.trialEnd!.toISOString() });
      return;
    case 'cancel_at_period_end':
      await subscription.update(
        {
          status: nextStatus(subscription.status, 'period_end_cancel'),
          cancelledAt: step.at,
          cancelledBy: subscription.cancelledBy ?? 'MERCHANT',
          updatedAt: step.at,
        },
        { transaction },
      );
      await emit('subscription.cancelled', step.at, { refund: null });
      return;
    case 'expire_fixed_term':
      await subscription.update(
        { status: nextStatus(subscription.status, 'fixed_term_ended'), updatedAt: step.at },
        { transaction },
      );
      await emit('subscription.expired', step.at);
      return;
    case 'renew':
      // A metered renewal: its usage line is billed with the period's invoice. Due at once: the
      // charge follows in this pass, or (after a crash) in the next one.
      await openPeriodInvoice(deps, subscription, step.period, step.at, transaction, step.at);
      await subscription.update(
        { currentPeriodStart: step.period.start, currentPeriodEnd: step.period.end, updatedAt: step.at },
        { transaction },
      );
  }
}

/**
 * Charges every due OPEN invoice (renewals and dunning retries) of a live subscription: a batch
 * claimed in one transaction (FOR UPDATE SKIP LOCKED), then sent.
 */
export async function chargeDueInvoices(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const { claims, settled } = await deps.sequelize.transaction(async (transaction) => {
    const due = await deps.sequelize.query<{ id: string; next_payment_attempt: Date }>(
      `SELECT i.id, i.next_payment_attempt
         FROM invoices i
         JOIN subscriptions s ON s.id = i.subscription_id
         LEFT JOIN test_clocks tc ON tc.project_id = i.project_id
        WHERE ${dueInvoice(options.livemode)}
        ORDER BY i.next_payment_attempt
        LIMIT $3
        FOR UPDATE OF i SKIP LOCKED`,
      { bind: [deps.clock.now(), options.projectId ?? null, batchSize], transaction, type: QueryTypes.SELECT },
    );
    if (due.length === 0) return { claims: [], settled: 0 };
    const invoices = await InvoiceModel.findAll({ where: { id: due.map((d) => d.id) }, transaction });
    const byId = new Map(invoices.map((i) => [i.id, i]));
    const claimed = await claimInvoiceCharges(
      deps,
      due.map((d) => ({ invoice: byId.get(d.id)!, at: new Date(d.next_payment_attempt) })),
      transaction,
      (outcome, t) => applyChargeOutcome(deps, outcome, t),
    );
    return {
      claims: claimed.flatMap((c) => ('claim' in c ? [c.claim] : [])),
      settled: claimed.filter((c) => 'done' in c && !c.done.pending).length,
    };
  });
  return settled + (await sendScheduledCharges(deps, claims, options.concurrency ?? DEFAULT_CONCURRENCY));
}
