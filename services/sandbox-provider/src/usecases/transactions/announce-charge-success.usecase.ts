import type { TransactionModel } from '../../db/models';
import { describeTransaction } from '../../resources/paystack-resources';
import type { SandboxDeps } from '../../sandbox-deps';
import { announceDescribedChargeSuccess } from '../../webhooks/charge-success-webhook';

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
