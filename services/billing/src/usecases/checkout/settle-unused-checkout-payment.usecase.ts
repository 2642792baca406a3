import { DomainError, isUuid, type ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import {
  refundUnusedCheckoutPayment,
  type UnusedCheckoutPayment,
  type UnusedPaymentOutcome,
} from '../../invoicing/unused-checkout-payment';

/**
 * POST of a payment that completed no checkout session (catalog's second Pay, or a payment after
 * the session ended): refunded exactly once by refundUnusedCheckoutPayment, which says how.
 */
export async function settleUnusedCheckoutPayment(
  deps: BillingDeps,
  scope: ProjectScope,
  payment: UnusedCheckoutPayment,
): Promise<UnusedPaymentOutcome> {
  if (!isUuid(payment.checkoutSessionId) || !payment.transactionReference.trim()) {
    throw DomainError.invalid([
      {
        loc: ['checkout_session_id'],
        msg: 'A checkout session id and a transaction reference are required',
        type: 'value_error',
      },
    ]);
  }
  return refundUnusedCheckoutPayment(deps, scope, payment);
}
