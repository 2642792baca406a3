import type { Transaction } from 'sequelize';
import { AmountOutOfRangeError, BoundedConcurrency, recordEvent, type NewEvent } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import { dueBillingStep, type BillingStep } from '../domain/billing-step';
import { pendingPlanOf } from '../domain/plan-change';
import { nextStatus } from '../domain/subscription-status';
import { billsUsage } from '../invoicing/usage-billing';
import type { BillingDeps } from '../billing-deps';
import { countParkedBillingStep } from '../billing-metrics';
import {
  claimInvoiceCharges,
  openPeriodInvoice,
  openPeriodInvoices,
  sendScheduledCharges,
  type ChargeClaim,
} from '../invoicing/invoice-payment';
import { viewOf } from '../read-models/subscription.read-model';
import { switchPlan } from '../subscription-changes/switch-plan';
import { subscriptionEvents } from '../events/subscription.events';
import type { SubscriptionView } from '../read-models/subscription.read-model';

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
 * How much of a project's test-mode work is due or in flight, whoever holds it (a test clock's
 * advance waits for it).
 */
export function dueTestWorkCount(deps: BillingDeps, projectId: string): Promise<number> {
  return deps.dueWork.testWorkCount(deps.clock.now(), projectId);
}

/**
 * The scheduler's backlog in both modes (the scheduler_due_items metric): subscriptions with a
 * step due (period ends, trial ends and notices) and invoices whose charge is due (dunning retries).
 */
export function dueWorkCounts(deps: BillingDeps): Promise<{ subscriptions: number; invoices: number }> {
  return deps.dueWork.counts(deps.clock.now());
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
 * work nor the provider calls wait for the other. Batch k+1's charges start as batch k's answers
 * free their slots; batch k is all answered before batch k+2 is stepped.
 */
async function stepAndChargeDue(deps: BillingDeps, options: BillingPassOptions): Promise<number> {
  const slots = providerCallSlots(options);
  let done = 0;
  const charging: Promise<number>[] = [];
  try {
    for (;;) {
      const batch = await stepDueSubscriptions(deps, options);
      done += batch.stepped;
      if (batch.stepped === 0 && batch.claims.length === 0) break;
      charging.push(sendScheduledCharges(deps, batch.claims, slots));
      if (charging.length >= BATCHES_CHARGING) done += await charging.shift()!;
    }
  } finally {
    for (const batch of charging.splice(0)) done += await batch;
  }
  return done;
}

/**
 * Batches whose charges are out at once. Two: the next batch's charges take the slots the
 * previous batch's answers free, so the calls in flight stay at `concurrency` across the batch
 * boundary. With one, each batch waited for its slowest answer (latency + 10% jitter at a real
 * provider) with its slots emptying, which held renewals near 800/s at 500 ms with 600 calls
 * (docs/benchmarks.md).
 */
const BATCHES_CHARGING = 2;

/** The pass's provider calls in flight, shared by all of its batches. */
const providerCallSlots = (options: BillingPassOptions) =>
  new BoundedConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY, Number.MAX_SAFE_INTEGER, 'provider calls');

/**
 * A pass's provider calls in flight and subscriptions claimed at once, when its caller gives
 * none (the scheduler sizes both: billing-scheduler.ts). Measured with the renewals benchmark at
 * 0 ms: 64 -> 128 calls took it from ~1,000 to ~1,050/s.
 */
export const DEFAULT_CONCURRENCY = 128;
export const DEFAULT_BATCH_SIZE = 500;

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
    const rows = await deps.dueWork.claimDueSubscriptions(
      deps.clock.now(),
      { projectId: options.projectId, livemode: options.livemode, limit: batchSize },
      transaction,
    );
    if (rows.length === 0) return { stepped: 0, claims: [] };
    const subscriptions = await deps.subscriptions.findMany(
      rows.map((r) => r.id),
      transaction,
    );
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    const billedPeriods = await deps.subscriptions.billedPeriodCounts(
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
        billedPeriods.get(subscription.id) ?? 0,
      );
      if (step.kind === 'none') continue;
      // A renewal that bills usage or applies a pending plan change is a step of its own.
      if (step.kind === 'renew' && !billsUsage(subscription) && !step.pendingPlan) {
        plainRenewals.push({ subscription, step });
        continue;
      }
      try {
        await deps.sequelize.transaction({ transaction }, (savepoint) =>
          takeBillingStep(deps, subscription, step, savepoint),
        );
        stepped += 1;
      } catch (err) {
        if (!(err instanceof AmountOutOfRangeError)) {
          deps.logger.error({ err, subscription_id: row.id }, 'billing step failed; retrying next pass');
          continue;
        }
        // An amount out of range fails the same way every pass: parked until its usage changes.
        await deps.subscriptions.parkBilling(row.id, err.message, new Date(row.now), transaction);
        countParkedBillingStep(subscription.livemode);
        deps.logger.error(
          { err, subscription_id: row.id },
          'billing step cannot be computed; parked until the usage of the subscription changes',
        );
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

/**
 * Plain renewals (no usage line, no plan change) of locked subscriptions, together: their period
 * invoices (numbered, with the plan line, their money and invoice.created), their new periods, and
 * their charges claimed (an invoice the balance paid in full is PAID there, without a charge), in a
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
  const invoices = await openPeriodInvoices(
    deps,
    renewals.map(({ subscription, step }) => ({ subscription, period: step.period, at: step.at, chargeAt: null })),
    transaction,
  );
  await deps.subscriptions.startPeriods(
    renewals.map(({ subscription, step }) => ({ id: subscription.id, ...step.period, at: step.at })),
    transaction,
  );
  const claimed = await claimInvoiceCharges(
    deps,
    invoices.map((invoice) => ({ invoice, at: invoice.createdAt })),
    transaction,
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
  const emit = async (event: (view: SubscriptionView, at: Date) => NewEvent<unknown>, at: Date) =>
    recordEvent(deps.sequelize, transaction, event(await viewOf(deps, subscription, transaction), at));
  switch (step.kind) {
    case 'notify_trial_will_end':
      await deps.subscriptions.markTrialWillEndNotified(subscription.id, step.at, transaction);
      await emit(subscriptionEvents.trialWillEnd, step.at);
      return;
    case 'cancel_at_period_end':
      await deps.subscriptions.markCancelled(
        subscription,
        nextStatus(subscription.status, 'period_end_cancel'),
        subscription.cancelledBy ?? 'MERCHANT',
        step.at,
        transaction,
      );
      await emit((view, at) => subscriptionEvents.cancelled(view, at, null), step.at);
      return;
    case 'expire_fixed_term':
      await deps.subscriptions.setStatus(
        subscription,
        nextStatus(subscription.status, 'fixed_term_ended'),
        step.at,
        transaction,
      );
      await emit(subscriptionEvents.expired, step.at);
      return;
    case 'renew':
      // A plan change pending at this period end is made first, so the new period's invoice
      // bills the new plan (docs/api-behaviour.md §18); the ended period's usage is still priced
      // at the plan in force when it was recorded.
      if (step.pendingPlan) {
        const plan = pendingPlanOf(subscription)!;
        await switchPlan(deps, subscription, plan, step.at, transaction, { newAnchor: step.pendingPlan.newAnchor });
      }
      // A metered renewal: its usage lines are billed with the period's invoice. Due at once: the
      // charge follows in this pass, or (after a crash) in the next one.
      await openPeriodInvoice(deps, subscription, step.period, step.at, transaction, step.at);
      // The same statement as a batch of renewals (renewTogether), for a batch of one.
      await deps.subscriptions.startPeriods([{ id: subscription.id, ...step.period, at: step.at }], transaction);
  }
}

/**
 * Charges every due OPEN invoice (renewals and dunning retries) of a live subscription: a batch
 * claimed in one transaction (FOR UPDATE SKIP LOCKED), then sent.
 */
export async function chargeDueInvoices(deps: BillingDeps, options: BillingPassOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const { claims, settled } = await deps.sequelize.transaction(async (transaction) => {
    const due = await deps.dueWork.claimDueInvoices(
      deps.clock.now(),
      { projectId: options.projectId, livemode: options.livemode, limit: batchSize },
      transaction,
    );
    if (due.length === 0) return { claims: [], settled: 0 };
    const invoices = await deps.invoices.findMany(
      due.map((d) => d.id),
      transaction,
    );
    const byId = new Map(invoices.map((i) => [i.id, i]));
    const claimed = await claimInvoiceCharges(
      deps,
      due.map((d) => ({ invoice: byId.get(d.id)!, at: new Date(d.next_payment_attempt) })),
      transaction,
    );
    return {
      claims: claimed.flatMap((c) => ('claim' in c ? [c.claim] : [])),
      settled: claimed.filter((c) => 'done' in c && !c.done.pending).length,
    };
  });
  return settled + (await sendScheduledCharges(deps, claims, providerCallSlots(options)));
}
