import { contextOfTraceHeaders, inSpan, recordSpanError, SpanKind } from '@billing/platform';
import type { ClaimedDelivery } from '../db/repositories/delivery.repository';
import { signedHeaders } from '../domain/delivery-signature';
import { afterAttempt } from '../domain/delivery-status';
import type { WebhookDeps } from '../notification-deps';
import { countDeliveryAttempt } from './delivery-metrics';

/**
 * Where a process's attempts go: `room` is how many more it will take now, `track` receives each
 * attempt started, so that a slow or dead receiver holds only its own deliveries, never the next
 * pass (the DeliveryWorker).
 */
export interface AttemptTracker {
  room(): number;
  track(attempt: Promise<unknown>): void;
}

/** Starts sending deliveries this process holds the lease of (claimed, or created claimed). */
export function startClaimedDeliveries(deps: WebhookDeps, claimed: ClaimedDelivery[], attempts: AttemptTracker): void {
  for (const delivery of claimed) attempts.track(attemptDelivery(deps, delivery));
}

/** A claim's lease: past the attempt's own timeout, so a lease never runs out under a live attempt. */
export function deliveryLeaseMs(deps: WebhookDeps): number {
  return deps.delivery.timeoutMs + LEASE_MARGIN_MS;
}

const LEASE_MARGIN_MS = 5_000;

/**
 * One attempt is a span of the trace of the delivery's event (docs/decisions.md, "One trace per
 * request"), whatever pass or replica makes it; its attributes name the delivery, never its
 * secret or body.
 */
function attemptDelivery(deps: WebhookDeps, delivery: ClaimedDelivery) {
  const attributes = {
    'webhook.id': delivery.webhookId,
    'webhook.delivery_id': delivery.id,
    'webhook.event': delivery.event,
    'webhook.attempt': delivery.attempt,
  };
  const parent = contextOfTraceHeaders(delivery.traceHeaders);
  return inSpan('webhook delivery attempt', { kind: SpanKind.INTERNAL, attributes, parent }, async (span) => {
    const outcome = await sendDelivery(deps, delivery);
    if (!outcome) {
      recordSpanError(span, new Error('webhook secret could not be opened'));
      return undefined;
    }
    if (outcome === 'abandoned') {
      span.setAttribute('webhook.abandoned', true);
      return undefined;
    }
    span.setAttribute('webhook.delivery_status', outcome.status);
    if (outcome.statusCode !== null) span.setAttribute('http.response.status_code', outcome.statusCode);
    if (outcome.status !== 'SUCCEEDED') recordSpanError(span, new Error(outcome.error ?? 'not delivered'));
    return outcome.status;
  });
}

/** Sends one claimed delivery and records the attempt; nothing when its secret cannot be opened. */
async function sendDelivery(deps: WebhookDeps, delivery: ClaimedDelivery) {
  const at = deps.clock.now();
  let secret: string;
  try {
    secret = deps.secrets.open(delivery.secretSealed);
  } catch (err) {
    deps.logger.error({ err, delivery_id: delivery.id }, 'webhook secret could not be opened');
    return;
  }
  const outcome = await deps.http.post(
    delivery.url,
    delivery.body,
    signedHeaders(delivery.body, secret, delivery.id, at),
  );
  // The process is stopping: another worker sends it at once instead of after the lease.
  if (outcome.abandoned) {
    await deps.deliveries.releaseLease(delivery.id);
    return 'abandoned' as const;
  }
  const next = afterAttempt(
    delivery.status,
    delivery.attempt,
    { statusCode: outcome.statusCode },
    deps.clock.now(),
    deps.delivery.retryDelaysMs,
  );
  const record = {
    deliveryId: delivery.id,
    attempt: delivery.attempt,
    at,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error ?? (next.status === 'SUCCEEDED' ? null : `HTTP ${outcome.statusCode}`),
    status: next.status,
    nextAttemptAt: next.nextAttemptAt,
  };
  await deps.recordAttempt(record);
  countDeliveryAttempt(next.status, outcome.durationMs);
  return record;
}
