import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import { PaymentProviderError, type ChargeAuthorizationInput, type VerifiedTransaction } from '@billing/payments';
import { nextDunningAttempt } from '../domain/dunning';
import { InvoiceModel } from '../db/models';
import { invoiceEventData } from '../events/event-payloads';
import type { BillingDeps } from './billing-deps';
import { countCharge } from './billing-metrics';

export interface ChargeResult {
  paid: boolean;
  invoice: InvoiceModel;
  /** Why the charge did not succeed (the provider's words), when it did not. */
  failure?: string;
  /** The outcome is not known yet (provider unreachable, or another charge in flight). */
  pending?: boolean;
}

/** What the outcome transaction passes to a caller that must act on it in the same transaction. */
export interface ChargeOutcome {
  paid: boolean;
  invoice: InvoiceModel;
  failure?: string;
  /** The business time of the outcome. */
  at: Date;
}

export interface ChargeOptions {
  /** Business time of the attempt (a scheduled step's due time); default the project's now. */
  at?: Date;
  /** The scheduler's claim: charge only if the invoice is still due at this time. */
  onlyIfDueBy?: Date;
  /** A scheduler sweep: an invoice another caller holds is skipped rather than waited for. */
  skipLocked?: boolean;
  /** Runs in the transaction that records the outcome (subscription consequences). */
  onOutcome?: (outcome: ChargeOutcome, transaction: Transaction) => Promise<void>;
  /** Runs in the transaction that claims a charge (its PENDING row), before the provider hears of it. */
  onClaim?: (claim: ChargeClaim, transaction: Transaction) => Promise<void>;
}

const DEFAULT_DUNNING_DAYS = [1, 3, 5];

/** Paystack allows only [A-Za-z0-9.=-] in a reference: the invoice id without dashes. */
export const invoiceChargeReference = (invoiceId: string, attempt: number) =>
  `inv-${invoiceId.replace(/-/g, '')}-${attempt}`;

/** The words of a FAILED payment the provider never heard of: nothing was charged. */
export const NEVER_CHARGED = 'Unknown to the payment provider';

/** A charge whose PENDING ledger row is committed: the provider may now be asked. */
export interface ChargeClaim {
  invoice: InvoiceModel;
  reference: string;
  /** 1 for the first charge of the invoice, then one more per retry. */
  attempt: number;
  /** Business time of the attempt. */
  at: Date;
  input: ChargeAuthorizationInput;
}

/** What claiming one invoice's charge came to. */
export type ClaimedCharge = { claim: ChargeClaim } | { done: ChargeResult };

/**
 * Claims the charges of OPEN invoices the caller has locked (or just created), in the caller's
 * transaction: attempt n = attempt_count + 1 under the idempotent reference inv-<id>-<n>, its
 * payments row written PENDING before the provider hears anything (a crash after the provider
 * charged is then settled by verifying that reference: settlePendingPayments), and the invoice
 * taken off the schedule while in flight. An invoice with a charge already in flight is left
 * alone; one with nothing to collect is paid, and one without a saved card fails, at once.
 * Batched: one query each for in-flight charges, e-mails, cards, payment rows and invoices.
 */
export async function claimInvoiceCharges(
  deps: BillingDeps,
  attempts: { invoice: InvoiceModel; at: Date }[],
  transaction: Transaction,
  onOutcome?: ChargeOptions['onOutcome'],
): Promise<ClaimedCharge[]> {
  if (attempts.length === 0) return [];
  const invoiceIds = attempts.map((a) => a.invoice.id);
  const customerIds = [...new Set(attempts.map((a) => a.invoice.customerId))];
  const [inFlight, emails, cards] = await Promise.all([
    deps.payments.invoicesWithPendingCharge(invoiceIds, transaction),
    deps.customers.emailsOf(customerIds, transaction),
    deps.authorizations.reusableCodesOf(customerIds, transaction),
  ]);
  const results: ClaimedCharge[] = [];
  const started: ChargeClaim[] = [];
  for (const { invoice, at } of attempts) {
    if (inFlight.has(invoice.id)) {
      results.push({
        done: { paid: false, invoice, pending: true, failure: 'A payment of this invoice is in progress' },
      });
      continue;
    }
    const attempt = invoice.attemptCount + 1;
    if (invoice.amountDue === 0) {
      // Nothing to collect (a free plan, or the customer's balance covered it: docs/api-behaviour.md
      // §20): paid without a provider call, with the same consequences as a paid charge.
      await markPaid(deps, invoice, { attempt, reference: null, at }, transaction);
      await onOutcome?.({ paid: true, invoice, at }, transaction);
      results.push({ done: { paid: true, invoice } });
      continue;
    }
    const email = emails.get(invoice.customerId);
    const authorizationCode = cards.get(invoice.customerId);
    if (!email || !authorizationCode) {
      const failure = 'The customer has no saved card';
      await markFailed(deps, invoice, { attempt, at, failure }, transaction);
      await onOutcome?.({ paid: false, invoice, failure, at }, transaction);
      results.push({ done: { paid: false, invoice, failure } });
      continue;
    }
    const reference = invoiceChargeReference(invoice.id, attempt);
    const claim: ChargeClaim = {
      invoice,
      reference,
      attempt,
      at,
      input: {
        authorizationCode,
        email,
        // The card pays what the balance left (docs/api-behaviour.md §20), on every attempt.
        amount: invoice.amountDue,
        currency: invoice.currency,
        reference,
        metadata: { invoice_id: invoice.id, subscription_id: invoice.subscriptionId, attempt },
      },
    };
    started.push(claim);
    results.push({ claim });
  }
  if (started.length > 0) {
    await deps.payments.recordChargesStarted(
      started.map(({ invoice, reference, attempt, at }) => ({
        id: randomUUID(),
        projectId: invoice.projectId,
        livemode: invoice.livemode,
        reference,
        purpose: 'INVOICE' as const,
        customerId: invoice.customerId,
        invoiceId: invoice.id,
        amount: invoice.amountDue,
        currency: invoice.currency,
        providerResponse: { attempt, at: at.toISOString() },
        createdAt: at,
      })),
      deps.clock.now(),
      transaction,
    );
    // Not due while in flight: no other sweep picks it up; settlement owns it if we die now.
    const scheduled = started.filter((c) => c.invoice.nextPaymentAttempt !== null).map((c) => c.invoice);
    await deps.invoices.unschedule(
      scheduled.map((invoice) => invoice.id),
      transaction,
    );
    for (const invoice of scheduled) invoice.set('nextPaymentAttempt', null, { raw: true });
  }
  return results;
}

/**
 * Asks the provider to make a claimed charge. Returns its answer, a refusal of the request
 * itself (nothing was charged), or null when the outcome is unknown (left PENDING for settlement).
 */
export async function sendClaimedCharge(
  deps: BillingDeps,
  claim: ChargeClaim,
): Promise<Pick<VerifiedTransaction, 'status' | 'gatewayResponse'> | null> {
  try {
    return await deps.providerFor(claim.invoice.livemode).chargeAuthorization(claim.input);
  } catch (err) {
    if (err instanceof PaymentProviderError && !err.retryable)
      return { status: 'failed', gatewayResponse: err.message };
    deps.logger.warn(
      { err, reference: claim.reference },
      'invoice charge outcome unknown; left PENDING for settlement',
    );
    return null;
  }
}

/**
 * Charges an OPEN invoice to the customer's saved card:
 *  1. one transaction locks the invoice, checks it is OPEN (and still due, for the scheduler),
 *     and claims the charge (claimInvoiceCharges);
 *  2. the provider charges (idempotent by reference);
 *  3. one transaction records the outcome (recordChargeOutcome): PAID + invoice.paid, or still
 *     OPEN with attempt_count = n, next_payment_attempt per the dunning schedule +
 *     invoice.payment_failed. An unreachable provider leaves the payment PENDING for settlement.
 * It never changes the subscription's status: callers apply nextStatus (via `onOutcome`).
 */
export async function chargeInvoice(
  deps: BillingDeps,
  invoiceId: string,
  options: ChargeOptions = {},
): Promise<ChargeResult> {
  const claimed = await deps.sequelize.transaction(async (transaction): Promise<ClaimedCharge | { skipped: true }> => {
    const invoice = await InvoiceModel.findOne({
      where: { id: invoiceId },
      transaction,
      lock: transaction.LOCK.UPDATE,
      skipLocked: options.skipLocked ?? false,
    });
    if (!invoice) {
      if (options.skipLocked) return { skipped: true };
      throw new Error(`invoice ${invoiceId} not found`);
    }
    const scope = { projectId: invoice.projectId, livemode: invoice.livemode };
    const at = options.at ?? (await deps.clocks.now(scope, transaction));
    if (invoice.status !== 'OPEN') {
      return { done: { paid: invoice.status === 'PAID', invoice, failure: `The invoice is ${invoice.status}` } };
    }
    if (options.onlyIfDueBy) {
      const due = invoice.nextPaymentAttempt;
      if (!due || due.getTime() > options.onlyIfDueBy.getTime())
        return { done: { paid: false, invoice, pending: true } };
    }
    const [result] = await claimInvoiceCharges(deps, [{ invoice, at }], transaction, options.onOutcome);
    if ('claim' in result) await options.onClaim?.(result.claim, transaction);
    return result;
  });
  if ('skipped' in claimed) return { paid: false, invoice: (await InvoiceModel.findByPk(invoiceId))!, pending: true };
  if ('done' in claimed) return claimed.done;

  // The invoice as the claim left it (locked, then committed): no need to read it again.
  const { claim } = claimed;
  const answer = await sendClaimedCharge(deps, claim);
  if (!answer) {
    return { paid: false, invoice: claim.invoice, pending: true, failure: 'The payment provider could not be reached' };
  }
  return recordChargeOutcome(deps, claim.reference, answer, claim.at, options);
}

/**
 * A PENDING invoice charge the provider says it does not know ("not found" on verify). The
 * charge may still be on its way (a frozen provider, a request still queued), so the attempt is
 * not given up for a new reference, which a late arrival of the first could charge a second
 * time: the same charge is sent again under the same reference. The provider charges a
 * reference once (a repeat returns the first outcome, a different charge under it is refused as
 * a duplicate), so whichever of the two arrives first is the only charge of this invoice
 * attempt. Its outcome is recorded as chargeInvoice's would be; an unknown one leaves the
 * payment PENDING with its clock restarted, for the next settlement pass.
 */
export async function resendUnknownCharge(
  deps: BillingDeps,
  reference: string,
  options: Pick<ChargeOptions, 'onOutcome'> & { at: Date },
): Promise<ChargeResult> {
  const input = await deps.sequelize.transaction(async (transaction) => {
    const payment = await deps.payments.lockByReference(reference, transaction);
    if (payment?.status !== 'PENDING' || !payment.invoiceId || !payment.customerId) return null;
    const invoice = await InvoiceModel.findByPk(payment.invoiceId, { transaction });
    const [emails, cards] = await Promise.all([
      deps.customers.emailsOf([payment.customerId], transaction),
      deps.authorizations.reusableCodesOf([payment.customerId], transaction),
    ]);
    const email = emails.get(payment.customerId);
    const authorizationCode = cards.get(payment.customerId);
    // A closed invoice or a card gone: nothing to send again; recorded as never charged.
    if (invoice?.status !== 'OPEN' || !email || !authorizationCode) return null;
    await deps.payments.restartCharge(reference, deps.clock.now(), transaction);
    return {
      authorizationCode,
      email,
      amount: payment.amount,
      currency: payment.currency,
      reference,
      metadata: { invoice_id: invoice.id, subscription_id: invoice.subscriptionId, attempt: attemptOf(reference) },
    } satisfies ChargeAuthorizationInput;
  });
  if (!input) return recordChargeOutcome(deps, reference, null, options.at, options);
  const provider = deps.providerFor((await deps.payments.findByReference(reference))!.livemode);
  let answer: Pick<VerifiedTransaction, 'status' | 'gatewayResponse'> | null;
  try {
    answer = await provider.chargeAuthorization(input);
  } catch (err) {
    if (!(err instanceof PaymentProviderError) || err.retryable) {
      deps.logger.warn({ err, reference }, 'invoice charge resent; outcome unknown, left PENDING');
      return { paid: false, invoice: (await InvoiceModel.findByPk(input.metadata.invoice_id))!, pending: true };
    }
    // Refused: the first request arrived meanwhile (a duplicate reference) or the card is
    // refused outright; what the provider now holds under the reference decides.
    answer = (await provider.verifyTransaction(reference)) ?? { status: 'failed', gatewayResponse: err.message };
  }
  return recordChargeOutcome(deps, reference, answer, options.at, options);
}

const attemptOf = (reference: string) => Number(reference.slice(reference.lastIndexOf('-') + 1));

/**
 * Records what the provider said about a PENDING invoice payment, once: a payment that is no
 * longer PENDING (settled by someone else) is left as it is.
 */
export async function recordChargeOutcome(
  deps: BillingDeps,
  reference: string,
  answer: Pick<VerifiedTransaction, 'status' | 'gatewayResponse'> | null,
  at: Date,
  options: Pick<ChargeOptions, 'onOutcome'> = {},
): Promise<ChargeResult> {
  return deps.sequelize.transaction(async (transaction) => {
    const payment = await deps.payments.lockByReference(reference, transaction);
    if (!payment?.invoiceId) throw new Error(`invoice payment ${reference} not found`);
    const invoice = (await InvoiceModel.findByPk(payment.invoiceId, {
      transaction,
      lock: transaction.LOCK.UPDATE,
    }))!;
    if (payment.status !== 'PENDING') {
      return { paid: invoice.status === 'PAID', invoice, failure: payment.gatewayResponse ?? undefined };
    }
    const attempt = attemptOf(reference);
    const words = answer?.gatewayResponse || (answer ? `Payment ${answer.status}` : NEVER_CHARGED);
    if (answer?.status === 'success') {
      await payment.update({ status: 'SUCCEEDED', gatewayResponse: words, updatedAt: at }, { transaction });
      countCharge('succeeded', invoice.livemode, transaction);
      if (invoice.status !== 'OPEN') {
        // Money moved for an invoice that was closed meanwhile (voided): keep the record for support.
        deps.logger.error({ reference, invoice_id: invoice.id, status: invoice.status }, 'charge for a closed invoice');
        return { paid: false, invoice, failure: `The invoice is ${invoice.status}` };
      }
      await markPaid(deps, invoice, { attempt, reference, at }, transaction);
      await options.onOutcome?.({ paid: true, invoice, at }, transaction);
      return { paid: true, invoice };
    }
    if (answer && answer.status !== 'failed' && answer.status !== 'abandoned') {
      // Still pending at the provider: settlement asks again later.
      countCharge('pending', invoice.livemode, transaction);
      return { paid: false, invoice, pending: true, failure: words };
    }
    await payment.update({ status: 'FAILED', gatewayResponse: words, updatedAt: at }, { transaction });
    countCharge('failed', invoice.livemode, transaction);
    if (invoice.status !== 'OPEN') return { paid: false, invoice, failure: words };
    if (!answer) {
      // Never charged, and never to be: resendUnknownCharge found nothing to send again (the
      // invoice was closed, the card removed). The attempt number is used up; due again now.
      await invoice.update(
        { attemptCount: Math.max(invoice.attemptCount, attempt), nextPaymentAttempt: at, updatedAt: at },
        { transaction },
      );
      return { paid: false, invoice, failure: words };
    }
    await markFailed(deps, invoice, { attempt, at, failure: words }, transaction);
    await options.onOutcome?.({ paid: false, invoice, failure: words, at }, transaction);
    return { paid: false, invoice, failure: words };
  });
}

/**
 * The one "invoice paid" rule: PAID, amount_paid = amount_due, invoice.paid. Every way an OPEN
 * invoice gets paid comes here (a charge's success, or nothing left to charge); recordPaidCharges
 * does the same for a batch.
 */
export async function markPaid(
  deps: BillingDeps,
  invoice: InvoiceModel,
  paid: { attempt: number; reference: string | null; at: Date },
  transaction: Transaction,
): Promise<void> {
  await invoice.update(
    {
      status: 'PAID',
      // The card's part; 0 when the balance paid it all.
      amountPaid: invoice.amountDue,
      paidAt: paid.at,
      attemptCount: Math.max(invoice.attemptCount, paid.attempt),
      nextPaymentAttempt: null,
      transactionReference: paid.reference,
      updatedAt: paid.at,
    },
    { transaction },
  );
  await recordEvent(deps.sequelize, transaction, {
    type: 'invoice.paid',
    data: invoiceEventData(invoice, await deps.customers.emailOf(invoice.customerId, transaction)),
    projectId: invoice.projectId,
    livemode: invoice.livemode,
    occurredAt: paid.at,
  });
}

async function markFailed(
  deps: BillingDeps,
  invoice: InvoiceModel,
  failed: { attempt: number; at: Date; failure: string },
  transaction: Transaction,
): Promise<void> {
  const [row] = await deps.sequelize.query<{ first_failed_at: Date }>(
    `UPDATE invoices SET first_failed_at = COALESCE(first_failed_at, $2) WHERE id = $1 RETURNING first_failed_at`,
    { bind: [invoice.id, failed.at], transaction, type: QueryTypes.SELECT },
  );
  const next = nextDunningAttempt(
    new Date(row.first_failed_at),
    failed.at,
    deps.dunningRetryDays ?? DEFAULT_DUNNING_DAYS,
  );
  await invoice.update(
    {
      attemptCount: Math.max(invoice.attemptCount, failed.attempt),
      nextPaymentAttempt: next,
      updatedAt: failed.at,
    },
    { transaction },
  );
  await recordEvent(deps.sequelize, transaction, {
    type: 'invoice.payment_failed',
    data: {
      ...invoiceEventData(invoice, await deps.customers.emailOf(invoice.customerId, transaction)),
      failure: failed.failure,
    },
    projectId: invoice.projectId,
    livemode: invoice.livemode,
    occurredAt: failed.at,
  });
}
