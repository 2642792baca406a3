import { traceHeadersOf, type Context, type EventEnvelope } from '@billing/platform';
import { deliveryBody } from '../domain/delivery-signature';
import { subscribesTo } from '../domain/event-catalogue';
import type { EventToDeliver } from '../db/repositories/delivery.repository';
import type { NotificationDeps } from './notification-deps';

/**
 * Turns events into deliveries: one per matching active webhook of the event's project and
 * mode. Events of no project (none so far) go nowhere. Idempotent: an event seen before adds
 * nothing, so the consumer may ack only after this returns and a redelivery is harmless.
 * `traces[i]` is the trace context of `envelopes[i]`.
 */
export async function fanOutEvents(
  deps: NotificationDeps,
  envelopes: EventEnvelope[],
  traces: Context[],
): Promise<number> {
  // Each delivery keeps its event's trace, which its attempts continue.
  const traceOf = new Map(envelopes.map((e, i) => [e.id, traces[i]]));
  const scoped = envelopes.filter((e) => e.project_id && e.livemode !== null);
  // Most events have no webhook at all: a look at the projects' webhooks first keeps their
  // bodies out of the database round trip. The insert checks the webhooks again.
  const subscriptions = await deps.webhooks.subscriptionsOf(scoped.map((e) => e.project_id!));
  const events: EventToDeliver[] = scoped
    .filter((e) =>
      subscriptions.some(
        (w) => w.projectId === e.project_id && w.livemode === e.livemode && subscribesTo(w.events, e.event),
      ),
    )
    .map((e) => ({
      id: e.id,
      event: e.event,
      projectId: e.project_id!,
      livemode: e.livemode!,
      body: deliveryBody(e),
      createdAt: new Date(e.created_at),
      traceHeaders: traceHeadersOf(traceOf.get(e.id)),
    }));
  return deps.deliveries.createForEvents(events, deps.clock.now());
}
