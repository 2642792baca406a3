import { traceHeadersOf, type Context, type EventEnvelope } from '@billing/platform';
import { deliveryBody } from '../../domain/delivery-signature';
import { subscribesTo } from '../../domain/event-catalogue';
import type { EventToDeliver } from '../../db/repositories/delivery.repository';
import { deliveryLeaseMs, startClaimedDeliveries, type AttemptTracker } from '../../delivery/delivery-attempts';
import type { WebhookDeps } from '../../notification-deps';

/**
 * Turns events into deliveries: one per matching active webhook of the event's project and
 * mode. Events of no project (identity's) and events outside the catalogue go nowhere, and are
 * handled (acked) all the same, never failed or parked. Idempotent: an event seen before adds
 * nothing, so the consumer may ack only after this returns and a redelivery is harmless.
 * `traces[i]` is the trace context of `envelopes[i]`.
 *
 * When this process has room for them, the deliveries are written claimed and their first
 * attempts start at once: no worker pass and no claim stand between an event and its POST
 * (docs/decisions.md, "Deliveries start from the consumer"). A crash after the insert leaves
 * them leased, and a worker sends them when the lease runs out, as after any claim. Without
 * room they wait due, and the workers are woken. Returns how many deliveries it created.
 */
export async function fanOutEvents(
  deps: WebhookDeps,
  envelopes: EventEnvelope[],
  traces: Context[],
  attempts: AttemptTracker,
): Promise<number> {
  // Each delivery keeps its event's trace, which its attempts continue.
  const traceOf = new Map(envelopes.map((e, i) => [e.id, traces[i]]));
  const scoped = envelopes.filter((e) => e.project_id && e.livemode !== null);
  // Most events have no webhook at all: a look at the projects' webhooks first keeps their
  // bodies out of the database round trip. The insert checks the webhooks again.
  const subscriptions = await deps.webhooks.subscriptionsOf(scoped.map((e) => e.project_id!));
  let expected = 0;
  const events: EventToDeliver[] = [];
  for (const e of scoped) {
    const matching = subscriptions.filter(
      (w) => w.projectId === e.project_id && w.livemode === e.livemode && subscribesTo(w.events, e.event),
    ).length;
    if (matching === 0) continue;
    expected += matching;
    events.push({
      id: e.id,
      event: e.event,
      projectId: e.project_id!,
      livemode: e.livemode!,
      body: deliveryBody(e),
      createdAt: new Date(e.created_at),
      traceHeaders: traceHeadersOf(traceOf.get(e.id)),
    });
  }
  const sendNow = expected > 0 && attempts.room() >= expected;
  const created = await deps.deliveries.createForEvents(
    events,
    deps.clock.now(),
    sendNow ? deliveryLeaseMs(deps) : null,
  );
  if (sendNow) startClaimedDeliveries(deps, created, attempts);
  else if (created.length > 0) deps.wakeWorkers();
  return created.length;
}
