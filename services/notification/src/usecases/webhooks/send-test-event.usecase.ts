import { randomUUID } from 'node:crypto';
import { DomainError, type ProjectScope } from '@billing/platform';
import { EVENT_CATALOGUE, type EventName } from '../../domain/event-catalogue';
import { deliveryBody } from '../../domain/delivery-signature';
import { mockEventData } from '../../domain/mock-events';
import type { DeliveryModel } from '../../db/models/delivery.model';
import type { WebhookDeps } from '../../notification-deps';

/**
 * A mock event of a catalogue kind for one webhook: a delivery like any other (signed, retried
 * on the schedule, in the logs), due at once; the workers are woken to send it.
 */
export async function sendTestEvent(
  deps: WebhookDeps,
  scope: ProjectScope,
  webhookId: string,
  event: string,
): Promise<DeliveryModel> {
  if (!(EVENT_CATALOGUE as readonly string[]).includes(event)) {
    throw DomainError.invalid([
      { loc: ['body', 'event'], msg: 'Unknown event; expected one of the catalogue', type: 'enum', input: event },
    ]);
  }
  const webhook = await deps.webhooks.get(scope, webhookId);
  const now = deps.clock.now();
  const body = deliveryBody({
    id: randomUUID(),
    event,
    data: mockEventData(event as EventName, now),
    created_at: now.toISOString(),
  });
  const deliveryId = await deps.deliveries.createTestDelivery(webhook.id, event, body, now);
  deps.wakeWorkers();
  return deps.deliveries.get(scope, deliveryId);
}
