import type { Transaction } from 'sequelize';
import { canonicalQuantity, usageAmount } from '../domain/usage-quantity';
import type { SubscriptionModel } from '../db/models';
import type { BillingDeps } from './billing-deps';
import type { ChargeInvoiceLine } from './invoice-money';

/**
 * Bills a subscription's metered usage of an ended period on the renewal invoice (docs/api-behaviour.md §8
 * and 9), inside the renewal's transaction, before that invoice is written (its totals are
 * computed once, with this line among the others: usecases/invoice-money.ts):
 *  - every unbilled record with timestamp < endedPeriod.end (all unbilled up to the period end)
 *    is marked billed (billed_at, invoice_id = the invoice about to be created) in one UPDATE,
 *    which also sums the quantities exactly in PostgreSQL NUMERIC; a record committed
 *    concurrently after that UPDATE stays unbilled and goes on the next invoice, never on two.
 *    The foreign key to the invoice is checked at commit (migration 0013), so the invoice row may
 *    follow in the same transaction; without it the transaction does not commit;
 *  - returns ONE USAGE line {quantity = the exact sum, unit_amount = usage_unit_amount,
 *    amount = sum x unit_amount rounded once half away from zero}, with the ended period on it.
 * Null (and nothing marked) when the plan is not metered or nothing is unbilled. A net negative
 * sum (corrections exceeding usage) bills 0: an invoice never goes below the subscription price.
 */
export async function billUsageForPeriod(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  endedPeriod: { start: Date; end: Date },
  invoiceId: string,
  transaction: Transaction,
): Promise<ChargeInvoiceLine | null> {
  const unitAmount = subscription.usageUnitAmount;
  if (unitAmount === null || unitAmount === undefined) return null;

  const billedAt = await deps.clocks.now(
    { projectId: subscription.projectId, livemode: subscription.livemode },
    transaction,
  );
  const { count, total } = await deps.usage.markBilled(
    subscription.id,
    endedPeriod.end,
    invoiceId,
    billedAt,
    transaction,
  );
  if (count === 0) return null;

  const quantity = canonicalQuantity(total);
  return {
    type: 'USAGE',
    description: `Usage (${quantity} units)`,
    quantity,
    unitAmount,
    amount: Math.max(0, usageAmount(quantity, unitAmount)),
    periodStart: endedPeriod.start,
    periodEnd: endedPeriod.end,
  };
}
