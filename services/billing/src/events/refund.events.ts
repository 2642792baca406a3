import { toMajorUnits, type NewEvent } from '@billing/platform';
import type { RefundModel } from '../db/models';
import type { RefundView } from '../domain/cancellation-refund';
import { refundViewOf } from '../read-models/refund.read-model';

/**
 * The one place refund.* events are built (docs/api-behaviour.md §12): each event type of the
 * resource has its builder here, and the lint rule in eslint.config.js refuses an event type
 * written anywhere else in the service. `data` is what merchants receive in webhooks: snake_case,
 * money in major units, ISO timestamps. Recording stays with the caller, in the transaction of
 * the change (recordEvent / recordEvents of @billing/platform).
 */

/** The refund object of docs/api-behaviour.md §16.4 (+ livemode): `refund` of subscription.cancelled. */
export const refundEventData = (refund: RefundView) => ({
  id: refund.id,
  amount: toMajorUnits(refund.amount),
  currency: refund.currency,
  status: refund.status,
  policy_id: refund.policyId,
  invoice_id: refund.invoiceId,
  livemode: refund.livemode,
});

/** refund.processed: the refund resource, with the subscription it belongs to. */
export const refundProcessedEventData = (refund: RefundView) => ({
  ...refundEventData(refund),
  subscription_id: refund.subscriptionId,
});

export const refundEvents = {
  /** A cancellation refund the provider accepted (docs/api-behaviour.md §16.23). */
  processed: (refund: RefundModel, at: Date): NewEvent<unknown> => ({
    type: 'refund.processed',
    data: refundProcessedEventData({ ...refundViewOf(refund), status: 'PROCESSED' }),
    projectId: refund.projectId,
    livemode: refund.livemode,
    occurredAt: at,
  }),
};
