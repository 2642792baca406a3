/** Delivery states (docs/api-behaviour.md §12): due (PENDING, RETRYING) until SUCCEEDED or FAILED. */
export type DeliveryStatus = 'PENDING' | 'RETRYING' | 'SUCCEEDED' | 'FAILED';

/** What happens to a delivery, as the transition table reads it. */
export type DeliveryEvent =
  /** An attempt got a 2xx. */
  | 'delivered'
  /** An attempt failed (non-2xx, timeout, no connection) with a retry delay left after it. */
  | 'failed_with_attempts_left'
  /** An attempt failed with no retry delay left (the fifth, or a manual retry's). */
  | 'failed_finally'
  /** The merchant asked to re-send a FAILED delivery (POST /webhooks/deliveries/{id}/retry). */
  | 'retry_requested';

/**
 * Every state x event -> next state; null: not allowed. A manual retry makes a FAILED delivery
 * due once more: its attempt has no retry delay after it, so failing again is FAILED again with
 * nothing scheduled (docs/api-behaviour.md §16.22).
 */
export const DELIVERY_TRANSITIONS: Record<DeliveryStatus, Record<DeliveryEvent, DeliveryStatus | null>> = {
  PENDING: {
    delivered: 'SUCCEEDED',
    failed_with_attempts_left: 'RETRYING',
    failed_finally: 'FAILED',
    retry_requested: null,
  },
  RETRYING: {
    delivered: 'SUCCEEDED',
    failed_with_attempts_left: 'RETRYING',
    failed_finally: 'FAILED',
    retry_requested: null,
  },
  FAILED: { delivered: null, failed_with_attempts_left: null, failed_finally: null, retry_requested: 'RETRYING' },
  SUCCEEDED: { delivered: null, failed_with_attempts_left: null, failed_finally: null, retry_requested: null },
};

export interface AttemptResult {
  /** HTTP status, or null when no answer came (timeout, refused connection, forbidden address). */
  statusCode: number | null;
}

export interface NextDeliveryState {
  status: DeliveryStatus;
  /** When the next attempt is due; null when none is scheduled. */
  nextAttemptAt: Date | null;
}

/**
 * The state after attempt number `attempt` (1-based) of a delivery in `status`: the retry delay
 * after attempt n is retryDelaysMs[n - 1]. Throws for a transition the table does not have.
 */
export function afterAttempt(
  status: DeliveryStatus,
  attempt: number,
  result: AttemptResult,
  at: Date,
  retryDelaysMs: number[],
): NextDeliveryState {
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const delayMs = retryDelaysMs[attempt - 1];
  const event: DeliveryEvent = delivered
    ? 'delivered'
    : delayMs !== undefined
      ? 'failed_with_attempts_left'
      : 'failed_finally';
  const next = transition(status, event);
  return { status: next, nextAttemptAt: next === 'RETRYING' ? new Date(at.getTime() + delayMs) : null };
}

/** The next state, or an error for a transition the table does not have. */
export function transition(status: DeliveryStatus, event: DeliveryEvent): DeliveryStatus {
  const next = DELIVERY_TRANSITIONS[status][event];
  if (!next) throw new Error(`no delivery transition from ${status} on ${event}`);
  return next;
}
