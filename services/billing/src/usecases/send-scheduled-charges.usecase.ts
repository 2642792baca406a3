import { activeContext, inSpan, recordEvents, type Context, type NewEvent } from '@billing/platform';
import { afterInvoicePaid } from '../domain/billing-step';
import { nextStatus } from '../domain/subscription-status';
import { invoiceEventData, subscriptionEventData } from '../events/event-payloads';
import { applyChargeOutcome } from './apply-charge-outcome';
import type { BillingDeps } from './billing-deps';
import { countCharge, countRenewal } from './billing-metrics';
import { recordChargeOutcome, sendClaimedCharge, type ChargeClaim } from './charge-invoice.usecase';

/**
 * Successful charges recorded together, in one transaction. Measured with the renewals
 * benchmark (128 in flight): 100 -> ~1,050/s, 250 -> ~1,200/s, 500 -> ~1,120/s.
 */
const PAID_BATCH_SIZE = 250;

interface PaidCharge {
  claim: ChargeClaim;
  gatewayResponse: string;
  /** The charge's span: its events continue it, though recorded with the batch. */
  trace: Context;
}

/**
 * Sends the scheduler's claimed charges (renewals and dunning retries) to the provider,
 * `concurrency` at a time, and records each outcome with its subscription consequences
 * (applyChargeOutcome's rules). Successes are recorded in batches (recordPaidCharges) while
 * the next charges are in flight; failures, rarer and each with its own dunning step, one by
 * one. An unknown outcome stays PENDING for settlement. Returns how many outcomes it recorded.
 */
export async function sendScheduledCharges(
  deps: BillingDeps,
  claims: ChargeClaim[],
  concurrency: number,
): Promise<number> {
  // The pass's trace: a batch of paid charges is recorded in it, not in the charge that filled it.
  const pass = activeContext();
  let recorded = 0;
  let next = 0;
  let paid: PaidCharge[] = [];
  const recording: Promise<void>[] = [];
  const recordPaid = () => {
    const batch = paid;
    paid = [];
    if (batch.length === 0) return;
    recording.push(
      inSpan('paid charges recorded', { parent: pass, attributes: { 'billing.charges': batch.length } }, () =>
        recordPaidCharges(deps, batch),
      ).then(
        (count) => {
          recorded += count;
        },
        (err: unknown) => {
          // Left PENDING: settlement verifies each reference with the provider later.
          deps.logger.error({ err, charges: batch.length }, 'paid charges not recorded; settlement will');
        },
      ),
    );
  };
  // One span per subscription's charge (a renewal or a dunning retry), under the pass's span.
  const charge = async (claim: ChargeClaim) => {
    const answer = await sendClaimedCharge(deps, claim);
    if (!answer) return;
    if (answer.status === 'success') {
      paid.push({ claim, gatewayResponse: answer.gatewayResponse || 'Payment success', trace: activeContext() });
      if (paid.length >= PAID_BATCH_SIZE) recordPaid();
      return;
    }
    try {
      const result = await recordChargeOutcome(deps, claim.reference, answer, claim.at, {
        onOutcome: (outcome, transaction) => applyChargeOutcome(deps, outcome, transaction),
      });
      if (!result.pending) recorded += 1;
    } catch (err) {
      deps.logger.error({ err, reference: claim.reference }, 'charge outcome not recorded; settlement will');
    }
  };
  const worker = async () => {
    while (next < claims.length) {
      const claim = claims[next++];
      const attributes = {
        'billing.subscription_id': claim.invoice.subscriptionId,
        'billing.invoice_id': claim.invoice.id,
        'billing.charge_attempt': claim.attempt,
      };
      await inSpan('renewal charge', { attributes }, () => charge(claim));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, claims.length) }, worker));
  recordPaid();
  await Promise.all(recording);
  return recorded;
}

/**
 * Records successful charges in one transaction: payments SUCCEEDED, invoices PAID, each
 * subscription moved on as afterInvoicePaid says, and invoice.paid + subscription.renewed per
 * charge. Exactly what recordChargeOutcome + applyChargeOutcome do for one, with a payment or
 * invoice that someone else settled or closed meanwhile left as it is.
 */
export async function recordPaidCharges(deps: BillingDeps, charges: PaidCharge[]): Promise<number> {
  return deps.sequelize.transaction(async (transaction) => {
    // Locks in a fixed order (payments by reference, then invoices, then subscriptions by id).
    const sorted = [...charges].sort((a, b) => a.claim.reference.localeCompare(b.claim.reference));
    const succeeded = await deps.payments.markSucceeded(
      sorted.map(({ claim, gatewayResponse }) => ({ reference: claim.reference, gatewayResponse, at: claim.at })),
      transaction,
    );
    const ours = sorted.filter(({ claim }) => succeeded.has(claim.reference));
    if (ours.length === 0) return 0;
    for (const { claim } of ours) countCharge('succeeded', claim.invoice.livemode, transaction);
    const paidIds = await deps.invoices.markPaidMany(
      ours.map(({ claim }) => ({
        id: claim.invoice.id,
        reference: claim.reference,
        attempt: claim.attempt,
        at: claim.at,
      })),
      transaction,
    );
    const paid = ours.filter(({ claim }) => paidIds.has(claim.invoice.id));
    for (const { claim } of ours) {
      if (!paidIds.has(claim.invoice.id)) {
        // Money moved for an invoice that was closed meanwhile (voided): keep the record for support.
        deps.logger.error({ reference: claim.reference, invoice_id: claim.invoice.id }, 'charge for a closed invoice');
      }
    }
    const subscriptions = await deps.subscriptions.lockMany(
      [...new Set(paid.map(({ claim }) => claim.invoice.subscriptionId))],
      transaction,
    );
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    const events: NewEvent<unknown>[] = [];
    for (const { claim, trace } of paid) {
      const { invoice, at, attempt, reference } = claim;
      invoice.set(
        {
          status: 'PAID',
          amountPaid: invoice.amountDue,
          paidAt: at,
          attemptCount: Math.max(invoice.attemptCount, attempt),
          nextPaymentAttempt: null,
          transactionReference: reference,
          updatedAt: at,
        },
        { raw: true },
      );
      const scope = { projectId: invoice.projectId, livemode: invoice.livemode, trace };
      events.push({
        type: 'invoice.paid',
        data: invoiceEventData(invoice, claim.input.email),
        occurredAt: at,
        ...scope,
      });
      const subscription = byId.get(invoice.subscriptionId);
      if (!subscription) continue;
      const { event, renewed } = afterInvoicePaid(subscription.status);
      if (event) {
        await subscription.update({ status: nextStatus(subscription.status, event), updatedAt: at }, { transaction });
      }
      if (renewed) {
        countRenewal('renewed', subscription.livemode, transaction);
        events.push({
          type: 'subscription.renewed',
          data: subscriptionEventData(subscription, claim.input.email),
          occurredAt: at,
          ...scope,
        });
      }
    }
    await recordEvents(deps.sequelize, transaction, events);
    return paid.length;
  });
}
