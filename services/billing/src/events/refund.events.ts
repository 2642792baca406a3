import type { RefundFact } from '@billing/analytics';
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

/**
 * The analytics fact of money given back to a card (docs/api-behaviour.md §25), on the envelope,
 * never in `data`. One per refund of money an invoice.paid counted as charged, on one event
 * only: a cancellation refund's on its refund.processed (once the provider took it; its
 * ORDER_CHANGE note carries none), a merchant's note to the card on its credit_note.created. A
 * second payment's refund has none, nor has the refund of a charge that landed on an invoice
 * closed meanwhile (no invoice): neither payment was ever counted as an invoice's charge.
 */
export const refundFact = (refund: RefundModel): RefundFact => ({
  kind: 'refund',
  refund_id: refund.id,
  currency: refund.currency,
  amount: refund.amount,
});

export const refundEvents = {
  /** A cancellation refund the provider accepted (docs/api-behaviour.md §16.23). */
  processed: (refund: RefundModel, at: Date): NewEvent<unknown> => ({
    type: 'refund.processed',
    data: refundProcessedEventData({ ...refundViewOf(refund), status: 'PROCESSED' }),
    projectId: refund.projectId,
    livemode: refund.livemode,
    occurredAt: at,
    ...(refund.invoiceId ? { analytics: refundFact(refund) } : {}),
  }),
};
