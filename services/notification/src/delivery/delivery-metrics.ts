import { counter, latencyHistogram } from '@billing/platform';
import type { DeliveryStatus } from '../domain/delivery-status';

/** Notification's delivery metrics (docs/deployment.md, "Metrics"), by the delivery's status after the attempt. */

const attempts = counter(
  'webhook_delivery_attempts_total',
  'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (no attempt left)',
  ['outcome'],
);
const duration = latencyHistogram(
  'webhook_delivery_attempt_duration_seconds',
  "Time from sending a webhook to the receiver's answer (or the timeout), by outcome",
  ['outcome'],
);

// Each outcome's count exists from the start, at 0, so that the webhook-delivery SLO's ratio
// (docs/slos.md) reads 0, not nothing, before the first failure.
for (const outcome of ['succeeded', 'retrying', 'failed']) attempts.labels({ outcome }).inc(0);

/** One recorded attempt. */
export function countDeliveryAttempt(status: DeliveryStatus, durationMs: number): void {
  const outcome = status.toLowerCase();
  attempts.inc({ outcome });
  duration.observe({ outcome }, durationMs / 1000);
}
