import { QueryTypes } from 'sequelize';
import { applyChargeOutcome } from './apply-charge-outcome';
import type { BillingDeps } from './billing-deps';
import { recordChargeOutcome, resendUnknownCharge, type ChargeOptions } from './charge-invoice.usecase';

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
  options: { olderThanMs: number; projectId?: string; livemode?: boolean; limit?: number },
): Promise<number> {
  const rows = await deps.sequelize.query<{ reference: string; livemode: boolean; at: string | null }>(
    `SELECT reference, livemode, provider_response->>'at' AS at
       FROM payments
      WHERE status = 'PENDING' AND invoice_id IS NOT NULL AND charge_started_at IS NOT NULL
        AND charge_started_at <= $1
        AND ($2::uuid IS NULL OR project_id = $2::uuid)
        AND ($4::boolean IS NULL OR livemode = $4::boolean)
      ORDER BY charge_started_at
      LIMIT $3`,
    {
      bind: [
        new Date(deps.clock.now().getTime() - options.olderThanMs),
        options.projectId ?? null,
        options.limit ?? 200,
        options.livemode ?? null,
      ],
      type: QueryTypes.SELECT,
    },
  );
  let settled = 0;
  for (const row of rows) {
    try {
      const verified = await deps.providerFor(row.livemode).verifyTransaction(row.reference);
      const at = row.at ? new Date(row.at) : deps.clock.now();
      const onOutcome: ChargeOptions['onOutcome'] = (outcome, transaction) =>
        applyChargeOutcome(deps, outcome, transaction);
      const result = verified
        ? await recordChargeOutcome(deps, row.reference, verified, at, { onOutcome })
        : await resendUnknownCharge(deps, row.reference, { at, onOutcome });
      if (!result.pending) settled += 1;
    } catch (err) {
      deps.logger.warn({ err, reference: row.reference }, 'pending payment not settled; will retry');
    }
  }
  return settled;
}
