import { BoundedConcurrency } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { recordChargeOutcome, resendUnknownCharge } from '../invoicing/invoice-payment';

/**
 * Crash safety of invoice charges (docs/api-behaviour.md §6): a payment still PENDING after `olderThanMs` of
 * real time (longer than any provider call may take) belongs to a process that died or lost the
 * answer. Its reference is verified with the provider:
 *  - success -> recorded as paid exactly as chargeInvoice would (invoice PAID, invoice.paid,
 *    subscription consequences);
 *  - failed -> the failure path (dunning schedule, invoice.payment_failed);
 *  - unknown to the provider -> the same charge sent again under the same reference
 *    (resendUnknownCharge), never a new reference while the first may still arrive;
 *  - unreachable -> left PENDING for the next pass.
 * Never a second charge (an attempt keeps its reference until the provider gave a final answer), never a lost one (the ledger row was
 * written before the provider call).
 */
export async function settlePendingPayments(
  deps: BillingDeps,
  options: { olderThanMs: number; projectId?: string; livemode?: boolean; limit?: number; concurrency?: number },
): Promise<number> {
  const rows = await deps.payments.staleInvoiceCharges(new Date(deps.clock.now().getTime() - options.olderThanMs), {
    projectId: options.projectId,
    livemode: options.livemode,
    limit: options.limit ?? 200,
  });
  // Verified side by side: each is one provider call and its own transaction on its own
  // payment, and at a real provider's latency (hundreds of ms) one after the other would leave a
  // crashed batch of hundreds PENDING for minutes (docs/benchmarks.md, billing day).
  const slots = new BoundedConcurrency(options.concurrency ?? 1, Number.MAX_SAFE_INTEGER, 'settlements');
  let settled = 0;
  await Promise.all(
    rows.map((row) =>
      slots.run(async () => {
        try {
          const verified = await deps.providerFor(row.livemode).verifyTransaction(row.reference);
          const at = row.at ? new Date(row.at) : deps.clock.now();
          const result = verified
            ? await recordChargeOutcome(deps, row.reference, verified, at)
            : await resendUnknownCharge(deps, row.reference, { at });
          if (!result.pending) settled += 1;
        } catch (err) {
          deps.logger.warn({ err, reference: row.reference }, 'pending payment not settled; will retry');
        }
      }),
    ),
  );
  return settled;
}
