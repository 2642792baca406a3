import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import { canonicalQuantity, usageAmount } from '../domain/usage-quantity';
import { InvoiceLineModel, type InvoiceModel, type SubscriptionModel } from '../db/models';
import type { BillingDeps } from './billing-deps';

/**
 * Bills a subscription's metered usage of an ended period on the renewal invoice (docs/api-behaviour.md §8
 * and 9), inside the renewal's transaction:
 *  - every unbilled record with timestamp < endedPeriod.end (all unbilled up to the period end)
 *    is marked billed (billed_at, invoice_id) in one UPDATE, which also sums the quantities
 *    exactly in PostgreSQL NUMERIC; a record committed concurrently after that UPDATE stays
 *    unbilled and goes on the next invoice, never on two;
 *  - ONE USAGE line {quantity = the exact sum, unit_amount = usage_unit_amount,
 *    amount = sum x unit_amount rounded once half away from zero} is appended to the invoice,
 *    with the ended period on it.
 * Returns the line's amount in minor units, for the caller to add to the invoice's totals
 * (this function does not change the invoice row). 0 and no line when the plan is not metered
 * or nothing is unbilled. A net negative sum (corrections exceeding usage) bills 0: an invoice
 * never goes below the subscription price.
 */
export async function billUsageForPeriod(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  endedPeriod: { start: Date; end: Date },
  invoice: InvoiceModel,
  transaction: Transaction,
): Promise<number> {
  const unitAmount = subscription.usageUnitAmount;
  if (unitAmount === null || unitAmount === undefined) return 0;

  const billedAt = await deps.clocks.now(
    { projectId: subscription.projectId, livemode: subscription.livemode },
    transaction,
  );
  const { count, total } = await deps.usage.markBilled(
    subscription.id,
    endedPeriod.end,
    invoice.id,
    billedAt,
    transaction,
  );
  if (count === 0) return 0;

  const quantity = canonicalQuantity(total);
  const amount = Math.max(0, usageAmount(quantity, unitAmount));
  const [next] = await deps.sequelize.query<{ position: number }>(
    'SELECT COALESCE(max(position) + 1, 0)::int AS position FROM invoice_lines WHERE invoice_id = $1',
    { bind: [invoice.id], transaction, type: QueryTypes.SELECT },
  );
  await InvoiceLineModel.create(
    {
      id: randomUUID(),
      invoiceId: invoice.id,
      position: next.position,
      type: 'USAGE',
      description: `Usage (${quantity} units)`,
      quantity,
      unitAmount,
      amount,
      periodStart: endedPeriod.start,
      periodEnd: endedPeriod.end,
    },
    { transaction },
  );
  return amount;
}
