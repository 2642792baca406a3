import { DomainError, type ProjectScope } from '@billing/platform';
import type { DeliveryModel } from '../../db/models/delivery.model';
import { DELIVERY_TRANSITIONS } from '../../domain/delivery-status';
import type { WebhookDeps } from '../../notification-deps';

/**
 * A merchant's re-send of a FAILED delivery: due again at once, for one attempt (its number
 * goes on from the last; failing again leaves it FAILED with nothing scheduled, docs/api-behaviour.md §16.22).
 * Answers the delivery as accepted; the workers are woken to send it.
 */
export async function retryDelivery(
  deps: WebhookDeps,
  scope: ProjectScope,
  deliveryId: string,
): Promise<DeliveryModel> {
  const delivery = await deps.deliveries.get(scope, deliveryId);
  const refused = () =>
    new DomainError('failed_precondition', `Only a FAILED delivery can be retried; this one is ${delivery.status}`);
  if (!DELIVERY_TRANSITIONS[delivery.status].retry_requested) throw refused();
  if (!(await deps.deliveries.requestRetry(delivery.id, deps.clock.now()))) throw refused();
  deps.wakeWorkers();
  return deps.deliveries.get(scope, deliveryId);
}
