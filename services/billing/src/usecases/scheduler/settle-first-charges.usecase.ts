import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { VerifiedTransaction } from '@billing/payments';
import type { PaymentModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';
import { NEVER_CHARGED } from '../../invoicing/invoice-payment';
import { FIRST_CHARGE_PREFIX } from '../../invoicing/first-invoice';
import { issueRefunds } from '../../invoicing/refund-issuing';

/**
 * Crash safety of POST /subscriptions' first charge. Its ledger row is written (PENDING, no
 * invoice yet) before the provider is asked; a row still PENDING after `olderThanMs` of real
 * time belongs to a request that died or lost the provider's answer, and since "a failed first
 * charge creates nothing" the request's subscription will never exist. Its reference is verified:
 *  - charged -> SUCCEEDED and refunded in full (reason ABANDONED_CHARGE), so no money is kept
 *    for a subscription that was not created;
 *  - failed, or unknown to the provider -> FAILED (nothing was charged);
 *  - still pending at the provider, or unreachable -> left for the next pass.
 * The request's own final transaction locks the same row and requires it PENDING, so a late
 * request and this settlement never both act on one charge. Refunds the provider could not take
 * yet are retried here too.
 */
export async function settleFirstCharges(
  deps: BillingDeps,
  options: { olderThanMs: number; limit?: number },
): Promise<number> {
  const rows = await deps.payments.staleFirstCharges(
    FIRST_CHARGE_PREFIX,
    new Date(deps.clock.now().getTime() - options.olderThanMs),
    options.limit ?? 100,
  );
  let settled = 0;
  for (const row of rows) {
    const verified = await verifiedOrLater(deps, row, 'first charge not settled; will retry');
    if (verified === 'later' || verified?.status === 'pending') continue;
    const refund = await deps.sequelize.transaction(async (transaction) => {
      const payment = await deps.payments.lockByReference(row.reference, transaction);
      if (!payment || payment.status !== 'PENDING' || payment.invoiceId) return null;
      const now = deps.clock.now();
      const charged = verified?.status === 'success';
      await deps.payments.settle(
        payment,
        {
          status: charged ? 'SUCCEEDED' : 'FAILED',
          gatewayResponse: verified?.gatewayResponse || (verified ? null : NEVER_CHARGED),
          providerResponse: { ...payment.providerResponse, settled: verified?.status ?? 'unknown' },
          at: now,
        },
        transaction,
      );
      settled += 1;
      return charged ? decideAbandonedChargeRefund(deps, payment, verified!.amount, now, transaction) : null;
    });
    if (refund) deps.logger.warn({ reference: row.reference }, 'first charge of an uncreated subscription refunded');
  }
  settled += await refundLateFirstCharges(deps, options.olderThanMs);
  // Issues the decided refunds, including ones an earlier pass could not send.
  const pending = await deps.refunds.listPendingAbandonedCharges(100);
  await issueRefunds(deps, pending);
  return settled;
}

/**
 * How long a first charge found unknown to the provider is looked for again: a request the
 * provider queued or a frozen network let through later than that is not expected.
 */
const LATE_CHARGE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * First charges settlement recorded as never charged ("not found" at the provider) may still
 * land: the request was on its way. The caller's retry with the same Idempotency-Key then charged
 * again under a new reference, and that charge paid the subscription; so one that lands late is
 * recorded SUCCEEDED and refunded in full, like any charge of an uncreated subscription: one
 * charge kept, any other refunded, whatever arrives when (docs/payment-recovery.md). Each is
 * looked at again at most every `olderThanMs`, for LATE_CHARGE_WINDOW_MS.
 */
async function refundLateFirstCharges(deps: BillingDeps, olderThanMs: number): Promise<number> {
  const now = deps.clock.now();
  const rows = await deps.payments.neverChargedFirstCharges(
    FIRST_CHARGE_PREFIX,
    NEVER_CHARGED,
    {
      createdAfter: new Date(now.getTime() - LATE_CHARGE_WINDOW_MS),
      checkedBefore: new Date(now.getTime() - olderThanMs),
    },
    100,
  );
  let landed = 0;
  for (const row of rows) {
    const verified = await verifiedOrLater(deps, row, 'never-charged first charge not looked at; will retry');
    if (verified === 'later') continue;
    if (verified?.status !== 'success') {
      await deps.payments.touch(row.reference, deps.clock.now());
      continue;
    }
    const refund = await deps.sequelize.transaction(async (transaction) => {
      const payment = await deps.payments.lockByReference(row.reference, transaction);
      if (payment?.status !== 'FAILED' || payment.gatewayResponse !== NEVER_CHARGED || payment.invoiceId) return null;
      const at = deps.clock.now();
      await deps.payments.settle(
        payment,
        {
          status: 'SUCCEEDED',
          gatewayResponse: verified.gatewayResponse,
          providerResponse: { ...payment.providerResponse, settled: 'late_success' },
          at,
        },
        transaction,
      );
      return decideAbandonedChargeRefund(deps, payment, verified.amount, at, transaction);
    });
    if (refund) {
      landed += 1;
      deps.logger.warn({ reference: row.reference }, 'first charge landed after it was found unknown; refunded');
    }
  }
  return landed;
}

/** The full refund of a first charge whose subscription was never created (reason ABANDONED_CHARGE). */
function decideAbandonedChargeRefund(
  deps: BillingDeps,
  payment: PaymentModel,
  amount: number,
  now: Date,
  transaction: Transaction,
) {
  return deps.refunds.create(
    { projectId: payment.projectId, merchantId: '', livemode: payment.livemode },
    {
      id: randomUUID(),
      reference: `abandoned:${payment.reference}`,
      paymentId: payment.id,
      transactionReference: payment.reference,
      invoiceId: null,
      subscriptionId: null,
      amount,
      currency: payment.currency,
      reason: 'ABANDONED_CHARGE',
      createdAt: now,
      updatedAt: now,
    },
    transaction,
  );
}

/** What the provider holds under a reference, or 'later' when it could not be asked (logged). */
async function verifiedOrLater(
  deps: BillingDeps,
  row: { reference: string; livemode: boolean },
  unanswered: string,
): Promise<VerifiedTransaction | null | 'later'> {
  try {
    return await deps.providerFor(row.livemode).verifyTransaction(row.reference);
  } catch (err) {
    deps.logger.warn({ err, reference: row.reference }, unanswered);
    return 'later';
  }
}
