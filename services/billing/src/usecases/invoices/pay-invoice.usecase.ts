import { DomainError, type ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import { chargeInvoice, NEVER_CHARGED, recordChargeOutcome, type ChargeResult } from '../../invoicing/invoice-payment';
import { invoiceView, type InvoiceView } from '../../read-models/invoice.read-model';

/**
 * POST /invoices/{id}/pay (docs/api-behaviour.md §11, 16.22): charges an OPEN invoice now. A failed charge is
 * 402 with the provider's words (the invoice stays OPEN, attempt_count + 1); success on a
 * PAST_DUE subscription makes it ACTIVE. Anything but OPEN is a 400.
 *
 * With an Idempotency-Key, the reference of the charge this request claims is stored with the
 * key in the claim's transaction; a retry (say after the gateway's deadline passed) answers from
 * that charge instead of making another one (answerEarlierCharge).
 */
export async function payInvoice(
  deps: BillingDeps,
  scope: ProjectScope,
  invoiceId: string,
  idempotencyKey?: string,
): Promise<InvoiceView> {
  const found = await deps.invoices.get(scope, invoiceId);
  const key = idempotencyKey && ({ operation: 'pay_invoice', key: idempotencyKey } as const);
  if (key) {
    const keyed = await deps.idempotencyKeys.claim(
      scope,
      { ...key, fingerprint: found.id, resource: {} as { reference?: string } },
      deps.clock.now(),
    );
    const earlier = !keyed.fresh && keyed.resource.reference;
    if (earlier) {
      const answered = await answerEarlierCharge(deps, scope, earlier);
      // null: the earlier charge never reached the provider, so charging now is the first charge,
      // unless the invoice was paid meanwhile (its dunning retry, due again at once): that answers.
      if (answered) return answered;
      const current = await deps.invoices.get(scope, invoiceId);
      if (current.status === 'PAID') return invoiceView(deps, current);
    }
  }
  if (found.status !== 'OPEN') {
    throw new DomainError('failed_precondition', `Only an OPEN invoice can be paid; this one is ${found.status}`);
  }
  const result = await chargeInvoice(deps, found.id, {
    onClaim: key
      ? (claim, transaction) => deps.idempotencyKeys.attach(scope, key, { reference: claim.reference }, transaction)
      : undefined,
  });
  return answer(deps, result);
}

async function answer(deps: BillingDeps, result: ChargeResult): Promise<InvoiceView> {
  if (result.pending) {
    throw new DomainError('unavailable', result.failure ?? 'The outcome of the payment is not known yet; retry later');
  }
  if (!result.paid) {
    if (result.invoice.status !== 'OPEN' && result.invoice.status !== 'UNCOLLECTIBLE') {
      throw new DomainError('failed_precondition', result.failure ?? 'The invoice cannot be paid');
    }
    throw new DomainError('payment_required', result.failure ?? 'The payment failed');
  }
  return invoiceView(deps, result.invoice);
}

/**
 * The answer of the charge an earlier request with the same key made: settled -> its outcome;
 * still PENDING -> the provider is asked and a known outcome recorded now; "not found" or no
 * answer is not an outcome (the first request's charge may still be on its way): 503 until it is.
 * Null when settlement found the charge unknown to the provider (nothing was charged).
 */
async function answerEarlierCharge(
  deps: BillingDeps,
  scope: ProjectScope,
  reference: string,
): Promise<InvoiceView | null> {
  const payment = await deps.payments.findByReference(reference);
  if (!payment?.invoiceId) throw new Error(`invoice payment ${reference} not found`);
  if (payment.status === 'FAILED' && payment.gatewayResponse === NEVER_CHARGED) return null;
  if (payment.status !== 'PENDING') {
    const invoice = await deps.invoices.get(scope, payment.invoiceId);
    if (payment.status === 'SUCCEEDED') return invoiceView(deps, invoice);
    throw new DomainError('payment_required', payment.gatewayResponse || 'The payment failed');
  }
  const known = await deps
    .providerFor(scope.livemode)
    .verifyTransaction(reference)
    .catch(() => null);
  if (!known || known.status === 'pending') {
    throw new DomainError(
      'unavailable',
      'The payment of the request with this Idempotency-Key is still in progress; please retry',
    );
  }
  const result = await recordChargeOutcome(deps, reference, known, await deps.clocks.now(scope));
  return answer(deps, result);
}
