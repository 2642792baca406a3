import { randomUUID } from 'node:crypto';
import { DEFAULT_CURRENCY, type ProjectScope } from '@billing/platform';
import { validateAdjustment } from '../../domain/customer-balance';
import type { CustomerBalanceTransactionModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

export interface BalanceAdjustmentCommand {
  customerId: string;
  /** Signed minor units: positive grants credit, negative takes it back; never 0. */
  amount: number;
  description?: string;
  /** The caller's Idempotency-Key: a retry with it finds this adjustment instead of making another. */
  idempotencyKey?: string;
  /** Default: the balance's currency, else the customer's subscriptions', else NGN (§20). */
  currency?: string;
}

/**
 * POST /customers/{id}/balance-adjustments (docs/api-behaviour.md §20): a merchant grants credit
 * to a customer or takes it back, never below 0 (InsufficientBalanceError, a 400, nothing
 * changed), in the balance's currency (another one: BalanceCurrencyError, a 400). One transaction stores the Idempotency-Key with the ledger row's id and makes the
 * change, so a retry after a lost answer finds that row (and a concurrent one with the same key
 * waits for it), and a refused change leaves no key behind.
 */
export async function createBalanceAdjustment(
  deps: BillingDeps,
  scope: ProjectScope,
  command: BalanceAdjustmentCommand,
): Promise<CustomerBalanceTransactionModel> {
  const { amount, description } = validateAdjustment(command);
  const customer = await deps.customers.get(scope, command.customerId);
  return deps.sequelize.transaction(async (transaction) => {
    let id = randomUUID();
    if (command.idempotencyKey) {
      const keyed = await deps.idempotencyKeys.claim(
        scope,
        {
          operation: 'balance_adjustment',
          key: command.idempotencyKey,
          fingerprint: `${customer.id}:${amount}:${command.currency ?? ''}:${description ?? ''}`,
          resource: { transactionId: id },
        },
        deps.clock.now(),
        transaction,
      );
      id = keyed.resource.transactionId;
      if (!keyed.fresh) {
        // Committed with its key, so it is there.
        const earlier = await deps.balances.find(id, transaction);
        if (!earlier) throw new Error(`balance adjustment ${id} of a stored key not found`);
        return earlier;
      }
    }
    const currency =
      command.currency ??
      customer.balanceCurrency ??
      (await deps.subscriptions.firstCurrencyOf(customer.id, transaction)) ??
      DEFAULT_CURRENCY;
    return deps.balances.change(
      {
        id,
        customerId: customer.id,
        type: 'ADJUSTMENT',
        amount,
        currency,
        description,
        invoiceId: null,
        at: await deps.clocks.now(scope, transaction),
      },
      transaction,
    );
  });
}
