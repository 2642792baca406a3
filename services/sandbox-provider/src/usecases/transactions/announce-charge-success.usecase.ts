import type { TransactionModel } from '../../db/models';
import { describeTransaction, type TransactionResource } from '../../resources/paystack-resources';
import type { SandboxDeps } from '../../sandbox-deps';

/**
 * Queues Paystack's `charge.success` webhook for a transaction that just succeeded. Never throws:
 * the payment stands whether or not the merchant hears of it (it can always verify).
 */
export async function announceChargeSuccess(deps: SandboxDeps, transaction: TransactionModel): Promise<void> {
  try {
    announceDescribedChargeSuccess(deps, await describeTransaction(deps, transaction));
  } catch (err) {
    deps.logger.error({ err, reference: transaction.reference }, 'charge.success webhook not sent');
  }
}

/** The same, for a caller that already built the transaction's resource (no second lookup). */
export function announceDescribedChargeSuccess(deps: SandboxDeps, resource: TransactionResource): void {
  try {
    deps.webhooks.send('charge.success', resource);
  } catch (err) {
    deps.logger.error({ err, reference: resource.reference }, 'charge.success webhook not sent');
  }
}
