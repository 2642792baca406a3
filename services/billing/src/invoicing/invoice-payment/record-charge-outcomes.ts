import type { Transaction } from 'sequelize';
import { recordEvent, type Context } from '@billing/platform';
import type { VerifiedTransaction } from '@billing/payments';
import type { InvoiceModel } from '../../db/models';
import { nextDunningAttempt } from '../../domain/dunning';
import type { BillingDeps } from '../../billing-deps';
import { countCharge } from '../../billing-metrics';
import { applyChargeOutcome } from './charge-consequences';
import {
  attemptOf,
  type ChargeClaim,
  type ChargeResult,
  type InvoicePayment,
  type OutcomeConsequences,
} from './charges';
import { recordInvoicesPaid } from './invoice-paid';
import { refundUnwantedCharge } from './unwanted-charge-refund';
import { refundSecondInvoicePayment } from '../credit-notes';
import { invoiceEvents } from '../../events/invoice.events';

const DEFAULT_DUNNING_DAYS = [1, 3, 5];

/** The words of a FAILED payment the provider never heard of: nothing was charged. */
export const NEVER_CHARGED = 'Unknown to the payment provider';

/** A charge the provider said succeeded. */
export interface SuccessfulCharge {
  claim: Pick<ChargeClaim, 'invoice' | 'reference' | 'attempt' | 'at'> & { input?: { email: string } };
  gatewayResponse: string;
  /** The charge's span: its events continue it, though recorded with a batch. */
  trace?: Context;
}

/**
 * Records successful charges in the caller's transaction, any number (a single one is a batch of
 * one): payments SUCCEEDED (one UPDATE), then the "invoice paid" rule with its consequences
 * (recordInvoicesPaid). A payment someone else settled meanwhile is left as it is; a charge of an
 * invoice paid meanwhile by another payment is refunded in full with a DUPLICATE note
 * (refundSecondInvoicePayment), one of an invoice closed meanwhile without (refundUnwantedCharge). Locks in a fixed order:
 * payments by reference, then invoices, then subscriptions by id. Returns the invoices it paid.
 */
export async function recordSuccessfulCharges(
  deps: BillingDeps,
  charges: SuccessfulCharge[],
  transaction: Transaction,
  consequences?: OutcomeConsequences,
): Promise<InvoicePayment[]> {
  const sorted = [...charges].sort((a, b) => a.claim.reference.localeCompare(b.claim.reference));
  const succeeded = await deps.payments.markSucceeded(
    sorted.map(({ claim, gatewayResponse }) => ({ reference: claim.reference, gatewayResponse, at: claim.at })),
    transaction,
  );
  const ours = sorted.filter(({ claim }) => succeeded.has(claim.reference));
  for (const { claim } of ours) countCharge('succeeded', claim.invoice.livemode, transaction);
  const paid = await recordInvoicesPaid(
    deps,
    ours.map(({ claim, trace }) => ({
      invoice: claim.invoice,
      attempt: claim.attempt,
      reference: claim.reference,
      at: claim.at,
      email: claim.input?.email,
      trace,
    })),
    transaction,
    consequences,
  );
  const paidIds = new Set(paid.map((p) => p.invoice.id));
  for (const { claim } of ours) {
    if (paidIds.has(claim.invoice.id)) continue;
    const payment = await deps.payments.findByReference(claim.reference, transaction);
    const invoice = await deps.invoices.lock(claim.invoice.id, transaction);
    if (!payment || !invoice) continue;
    if (invoice.status === 'PAID') {
      // Paid meanwhile by another payment (the hosted page's "Pay"): this one is a second payment.
      await refundSecondInvoicePayment(deps, { invoice, payment, at: claim.at }, transaction);
    } else {
      // Money moved for an invoice that was closed meanwhile (voided, written off): given back.
      await refundUnwantedCharge(deps, { payment, invoice, onInvoice: false, at: claim.at }, transaction);
    }
  }
  return paid;
}

/** Successful charges of the scheduler recorded together, in a transaction of their own. */
export async function recordPaidCharges(deps: BillingDeps, charges: SuccessfulCharge[]): Promise<number> {
  return deps.sequelize.transaction(
    async (transaction) => (await recordSuccessfulCharges(deps, charges, transaction)).length,
  );
}

/**
 * Records what the provider said about one PENDING invoice payment, once: a payment that is no
 * longer PENDING (settled by someone else) is left as it is. Success goes through
 * recordSuccessfulCharges as a batch of one; a failure through recordChargeFailed (dunning); a
 * pending answer leaves it for settlement. `consequences`: the standard ones when unset.
 */
export async function recordChargeOutcome(
  deps: BillingDeps,
  reference: string,
  answer: Pick<VerifiedTransaction, 'status' | 'gatewayResponse'> | null,
  at: Date,
  options: { consequences?: OutcomeConsequences } = {},
): Promise<ChargeResult> {
  return deps.sequelize.transaction(async (transaction) => {
    const payment = await deps.payments.lockByReference(reference, transaction);
    if (!payment?.invoiceId) throw new Error(`invoice payment ${reference} not found`);
    const invoice = (await deps.invoices.lock(payment.invoiceId, transaction))!;
    if (payment.status !== 'PENDING') {
      return { paid: invoice.status === 'PAID', invoice, failure: payment.gatewayResponse ?? undefined };
    }
    const attempt = attemptOf(reference);
    const words = answer?.gatewayResponse || (answer ? `Payment ${answer.status}` : NEVER_CHARGED);
    if (answer?.status === 'success') {
      const paid = await recordSuccessfulCharges(
        deps,
        [{ claim: { invoice, reference, attempt, at }, gatewayResponse: words }],
        transaction,
        options.consequences,
      );
      if (paid.length === 0) return { paid: false, invoice, failure: `The invoice is ${invoice.status}` };
      return { paid: true, invoice };
    }
    if (answer && answer.status !== 'failed' && answer.status !== 'abandoned') {
      // Still pending at the provider: settlement asks again later.
      countCharge('pending', invoice.livemode, transaction);
      return { paid: false, invoice, pending: true, failure: words };
    }
    await deps.payments.markFailed(payment, words, at, transaction);
    countCharge('failed', invoice.livemode, transaction);
    if (invoice.status !== 'OPEN') return { paid: false, invoice, failure: words };
    if (!answer) {
      // Never charged, and never to be: resendUnknownCharge found nothing to send again (the
      // invoice was closed, the card removed). The attempt number is used up; due again now.
      await deps.invoices.recordFailedAttempt(invoice, attempt, at, at, transaction);
      return { paid: false, invoice, failure: words };
    }
    await recordChargeFailed(deps, invoice, { attempt, at, failure: words }, transaction, options.consequences);
    return { paid: false, invoice, failure: words };
  });
}

/**
 * A failed charge of an OPEN invoice: attempt_count, the next attempt per the dunning schedule
 * (counted from the first failure), invoice.payment_failed, then its consequences (the standard
 * ones when unset: past due, or cancelled when the schedule is used up).
 */
export async function recordChargeFailed(
  deps: BillingDeps,
  invoice: InvoiceModel,
  failed: { attempt: number; at: Date; failure: string },
  transaction: Transaction,
  consequences: OutcomeConsequences = (outcome, t) => applyChargeOutcome(deps, outcome, t),
): Promise<void> {
  const firstFailedAt = await deps.invoices.markFirstFailure(invoice.id, failed.at, transaction);
  const next = nextDunningAttempt(firstFailedAt, failed.at, deps.dunningRetryDays ?? DEFAULT_DUNNING_DAYS);
  await deps.invoices.recordFailedAttempt(invoice, failed.attempt, next, failed.at, transaction);
  const customerEmail = await deps.customers.emailOf(invoice.customerId, transaction);
  await recordEvent(
    deps.sequelize,
    transaction,
    invoiceEvents.paymentFailed(invoice, customerEmail, failed.at, failed.failure),
  );
  await consequences({ paid: false, invoice, failure: failed.failure, at: failed.at }, transaction);
}
