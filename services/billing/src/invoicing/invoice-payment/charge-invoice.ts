import type { Transaction } from 'sequelize';
import { PaymentProviderError, type ChargeAuthorizationInput, type VerifiedTransaction } from '@billing/payments';
import type { BillingDeps } from '../../billing-deps';
import {
  attemptOf,
  type ChargeClaim,
  type ChargeResult,
  type ClaimedCharge,
  type OutcomeConsequences,
} from './charges';
import { claimInvoiceCharges, sendClaimedCharge } from './claim-charges';
import { recordChargeOutcome } from './record-charge-outcomes';

export interface ChargeOptions {
  /** Business time of the attempt; default the project's now. */
  at?: Date;
  /** The subscription consequences of the outcome; the standard ones (applyChargeOutcome) when unset. */
  consequences?: OutcomeConsequences;
  /** Runs in the transaction that claims a charge (its PENDING row), before the provider hears of it. */
  onClaim?: (claim: ChargeClaim, transaction: Transaction) => Promise<void>;
}

/**
 * Charges one OPEN invoice to the customer's saved card, now (pay-now, a plan change, a resume):
 *  1. one transaction locks the invoice, checks it is OPEN, and claims the charge
 *     (claimInvoiceCharges, a batch of one);
 *  2. the provider charges (idempotent by reference);
 *  3. one transaction records the outcome (recordChargeOutcome): PAID + invoice.paid, or still
 *     OPEN with attempt_count = n, next_payment_attempt per the dunning schedule +
 *     invoice.payment_failed, each with its subscription consequences. An unreachable provider
 *     leaves the payment PENDING for settlement.
 */
export async function chargeInvoice(
  deps: BillingDeps,
  invoiceId: string,
  options: ChargeOptions = {},
): Promise<ChargeResult> {
  const claimed = await deps.sequelize.transaction(async (transaction): Promise<ClaimedCharge> => {
    const invoice = await deps.invoices.lock(invoiceId, transaction);
    if (!invoice) throw new Error(`invoice ${invoiceId} not found`);
    const scope = { projectId: invoice.projectId, livemode: invoice.livemode };
    const at = options.at ?? (await deps.clocks.now(scope, transaction));
    if (invoice.status !== 'OPEN') {
      return { done: { paid: invoice.status === 'PAID', invoice, failure: `The invoice is ${invoice.status}` } };
    }
    const [result] = await claimInvoiceCharges(deps, [{ invoice, at }], transaction, options.consequences);
    if ('claim' in result) await options.onClaim?.(result.claim, transaction);
    return result;
  });
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
  options: Pick<ChargeOptions, 'consequences'> & { at: Date },
): Promise<ChargeResult> {
  const input = await deps.sequelize.transaction(async (transaction) => {
    const payment = await deps.payments.lockByReference(reference, transaction);
    if (payment?.status !== 'PENDING' || !payment.invoiceId || !payment.customerId) return null;
    const invoice = await deps.invoices.find(payment.invoiceId, transaction);
    const [emails, cards] = await Promise.all([
      deps.customers.emailsOf([payment.customerId], transaction),
      invoice ? deps.authorizations.cardsOfSubscriptions([invoice.subscriptionId], transaction) : new Map(),
    ]);
    const email = emails.get(payment.customerId);
    const authorizationCode = invoice && cards.get(invoice.subscriptionId);
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
      return { paid: false, invoice: (await deps.invoices.find(input.metadata.invoice_id))!, pending: true };
    }
    // Refused: the first request arrived meanwhile (a duplicate reference) or the card is
    // refused outright; what the provider now holds under the reference decides.
    answer = (await provider.verifyTransaction(reference)) ?? { status: 'failed', gatewayResponse: err.message };
  }
  return recordChargeOutcome(deps, reference, answer, options.at, options);
}
