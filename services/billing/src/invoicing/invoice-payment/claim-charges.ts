import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { PaymentProviderError, type VerifiedTransaction } from '@billing/payments';
import type { InvoiceModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import {
  invoiceChargeReference,
  type ChargeClaim,
  type ClaimedCharge,
  type InvoicePayment,
  type OutcomeConsequences,
} from './charges';
import { recordInvoicesPaid } from './invoice-paid';
import { recordChargeFailed } from './record-charge-outcomes';

/**
 * Claims the charges of OPEN invoices the caller has locked (or just created), in the caller's
 * transaction: attempt n = attempt_count + 1 under the idempotent reference inv-<id>-<n>, its
 * payments row written PENDING before the provider hears anything (a crash after the provider
 * charged is then settled by verifying that reference: settlePendingPayments), and the invoice
 * taken off the schedule while in flight. An invoice with a charge already in flight is left
 * alone; those with nothing to collect are paid together (recordInvoicesPaid), and one without a
 * saved card fails (with dunning), at once. Batched: one query each for in-flight charges,
 * e-mails, cards, payment rows and invoices. `consequences`: the standard ones when unset.
 */
export async function claimInvoiceCharges(
  deps: BillingDeps,
  attempts: { invoice: InvoiceModel; at: Date }[],
  transaction: Transaction,
  consequences?: OutcomeConsequences,
): Promise<ClaimedCharge[]> {
  if (attempts.length === 0) return [];
  const invoiceIds = attempts.map((a) => a.invoice.id);
  const customerIds = [...new Set(attempts.map((a) => a.invoice.customerId))];
  const [inFlight, emails, cards] = await Promise.all([
    deps.payments.invoicesWithPendingCharge(invoiceIds, transaction),
    deps.customers.emailsOf(customerIds, transaction),
    deps.authorizations.cardsOfSubscriptions([...new Set(attempts.map((a) => a.invoice.subscriptionId))], transaction),
  ]);
  const results: ClaimedCharge[] = [];
  const started: ChargeClaim[] = [];
  // Nothing to collect (a free plan, or the customer's balance covered it: docs/api-behaviour.md
  // §20): paid without a provider call, with the same consequences as a paid charge.
  const nothingToCharge: InvoicePayment[] = [];
  for (const { invoice, at } of attempts) {
    if (inFlight.has(invoice.id)) {
      results.push({
        done: { paid: false, invoice, pending: true, failure: 'A payment of this invoice is in progress' },
      });
      continue;
    }
    const attempt = invoice.attemptCount + 1;
    const email = emails.get(invoice.customerId);
    if (invoice.amountDue === 0) {
      nothingToCharge.push({ invoice, attempt, reference: null, at, email: email ?? '' });
      results.push({ done: { paid: true, invoice } });
      continue;
    }
    const authorizationCode = cards.get(invoice.subscriptionId);
    if (!email || !authorizationCode) {
      const failure = 'The customer has no saved card';
      await recordChargeFailed(deps, invoice, { attempt, at, failure }, transaction, consequences);
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
  await recordInvoicesPaid(deps, nothingToCharge, transaction, consequences);
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
    await deps.invoices.unschedule(scheduled, transaction);
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
