import type { RefundModel } from '../db/models';
import { publicRefundStatus, type RefundView } from '../domain/cancellation-refund';

/** A recorded cancellation refund as the API and the events show it. */
export const refundViewOf = (refund: RefundModel): RefundView => ({
  id: refund.id,
  amount: refund.amount,
  currency: refund.currency,
  status: publicRefundStatus(refund.status),
  policyId: refund.policyId ?? '',
  invoiceId: refund.invoiceId,
  subscriptionId: refund.subscriptionId ?? '',
  livemode: refund.livemode,
});
