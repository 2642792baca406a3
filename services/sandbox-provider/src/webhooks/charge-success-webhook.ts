import type { TransactionResource } from '../resources/paystack-resources';
import type { SandboxDeps } from '../sandbox-deps';

/**
 * Queues Paystack's `charge.success` webhook for a transaction whose resource the caller built.
 * Never throws: the payment stands whether or not the merchant hears of it (it can always verify).
 */
export function announceDescribedChargeSuccess(deps: SandboxDeps, resource: TransactionResource): void {
  try {
    deps.webhooks.send('charge.success', resource);
  } catch (err) {
    deps.logger.error({ err, reference: resource.reference }, 'charge.success webhook not sent');
  }
}
