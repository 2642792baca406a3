import { activeContext, inSpan, type BoundedConcurrency } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import type { ChargeClaim } from './charges';
import { sendClaimedCharge } from './claim-charges';
import { recordChargeOutcome, recordPaidCharges, type SuccessfulCharge } from './record-charge-outcomes';

/**
 * Successful charges recorded together, in one transaction. Measured with the renewals
 * benchmark (128 in flight): 100 -> ~1,050/s, 250 -> ~1,200/s, 500 -> ~1,120/s.
 */
const PAID_BATCH_SIZE = 250;

/**
 * Sends the scheduler's claimed charges (renewals and dunning retries) to the provider, each
 * when one of the pass's `slots` (its provider calls in flight, shared by its batches) is free, and records each outcome with its subscription consequences
 * (the standard consequences). Successes are recorded in batches (recordPaidCharges) while
 * the next charges are in flight; failures, rarer and each with its own dunning step, one by
 * one. An unknown outcome stays PENDING for settlement. Returns how many outcomes it recorded.
 */
export async function sendScheduledCharges(
  deps: BillingDeps,
  claims: ChargeClaim[],
  slots: BoundedConcurrency,
): Promise<number> {
  // The pass's trace: a batch of paid charges is recorded in it, not in the charge that filled it.
  const pass = activeContext();
  let recorded = 0;
  let paid: SuccessfulCharge[] = [];
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
      const result = await recordChargeOutcome(deps, claim.reference, answer, claim.at);
      if (!result.pending) recorded += 1;
    } catch (err) {
      deps.logger.error({ err, reference: claim.reference }, 'charge outcome not recorded; settlement will');
    }
  };
  await Promise.all(
    claims.map((claim) =>
      slots.run(() => {
        const attributes = {
          'billing.subscription_id': claim.invoice.subscriptionId,
          'billing.invoice_id': claim.invoice.id,
          'billing.charge_attempt': claim.attempt,
        };
        return inSpan('renewal charge', { attributes }, () => charge(claim));
      }),
    ),
  );
  recordPaid();
  await Promise.all(recording);
  return recorded;
}
