import type { Transaction } from 'sequelize';
import { counter } from '@billing/platform';

/** Billing's counters (docs/deployment.md, "Metrics"); each counted once its outcome is committed. */

const renewals = counter(
  'billing_renewals_total',
  'Period charges of subscriptions by outcome: renewed (paid), past_due (failed), cancelled_unpaid (dunning exhausted)',
  ['outcome', 'livemode'],
);
const charges = counter(
  'billing_charges_total',
  'Invoice charges by outcome (succeeded, failed, pending): renewals, dunning retries, pay-now and first charges of POST /subscriptions as the provider answered them, and hosted-checkout payments that paid a first invoice',
  ['outcome', 'livemode'],
);
const refunds = counter(
  'billing_refunds_total',
  'Refunds sent to the provider by outcome: processed, failed (refused), retry (outcome unknown, sent again later)',
  ['outcome', 'livemode'],
);

const parkedSteps = counter(
  'billing_steps_parked_total',
  'Billing steps that could not be computed (usage beyond what an invoice can hold): the subscription is parked until its usage changes',
  ['livemode'],
);

const RENEWAL_OUTCOMES = ['renewed', 'past_due', 'cancelled_unpaid'] as const;
const CHARGE_OUTCOMES = ['succeeded', 'failed', 'pending'] as const;
const REFUND_OUTCOMES = ['processed', 'failed', 'retry'] as const;
export type RenewalOutcome = (typeof RENEWAL_OUTCOMES)[number];
export type ChargeMetricOutcome = (typeof CHARGE_OUTCOMES)[number];
export type RefundMetricOutcome = (typeof REFUND_OUTCOMES)[number];

// Every outcome's series exists from the start, at 0: a rate over a series that only appears
// with its first count misses that count, and the alerts and SLOs of docs/slos.md divide by them.
for (const livemode of ['true', 'false']) {
  for (const outcome of RENEWAL_OUTCOMES) renewals.labels({ outcome, livemode }).inc(0);
  for (const outcome of CHARGE_OUTCOMES) charges.labels({ outcome, livemode }).inc(0);
  for (const outcome of REFUND_OUTCOMES) refunds.labels({ outcome, livemode }).inc(0);
  parkedSteps.labels({ livemode }).inc(0);
}

const afterCommit = (transaction: Transaction, count: () => void) => transaction.afterCommit(count);

export function countRenewal(outcome: RenewalOutcome, livemode: boolean, transaction: Transaction): void {
  afterCommit(transaction, () => renewals.inc({ outcome, livemode: String(livemode) }));
}

export function countCharge(outcome: ChargeMetricOutcome, livemode: boolean, transaction: Transaction): void {
  afterCommit(transaction, () => charges.inc({ outcome, livemode: String(livemode) }));
}

/**
 * A first charge's answer (POST /subscriptions), counted when it arrives: what follows it may be
 * retried under the same Idempotency-Key, the charge is not.
 */
export function countFirstCharge(outcome: ChargeMetricOutcome, livemode: boolean): void {
  charges.inc({ outcome, livemode: String(livemode) });
}

export function countRefund(outcome: RefundMetricOutcome, livemode: boolean): void {
  refunds.inc({ outcome, livemode: String(livemode) });
}

export function countParkedBillingStep(livemode: boolean): void {
  parkedSteps.inc({ livemode: String(livemode) });
}
