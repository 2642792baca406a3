/** Delivery states (contract 12): due (PENDING, RETRYING) until SUCCEEDED or FAILED. */
export type DeliveryStatus = 'PENDING' | 'RETRYING' | 'SUCCEEDED' | 'FAILED';

/** What one attempt came to, as the transition table reads it. */
export type AttemptOutcome =
  /** 2xx. */
  | 'delivered'
  /** Non-2xx, timeout or connection failure, with scheduled attempts left. */
  | 'failed_with_attempts_left'
  /** Non-2xx, timeout or connection failure on the last scheduled attempt, or on a manual retry. */
  | 'failed_finally';

/**
 * Every state x outcome -> next state. A FAILED delivery is attempted again only by a manual
 * retry, which is one attempt (contract 16.22); SUCCEEDED is final. null: no attempt is made in
 * that state, so the outcome cannot happen.
 */
export const DELIVERY_TRANSITIONS: Record<DeliveryStatus, Record<AttemptOutcome, DeliveryStatus | null>> = {
  PENDING: { delivered: 'SUCCEEDED', failed_with_attempts_left: 'RETRYING', failed_finally: 'FAILED' },
  RETRYING: { delivered: 'SUCCEEDED', failed_with_attempts_left: 'RETRYING', failed_finally: 'FAILED' },
  FAILED: { delivered: 'SUCCEEDED', failed_with_attempts_left: null, failed_finally: 'FAILED' },
  SUCCEEDED: { delivered: null, failed_with_attempts_left: null, failed_finally: null },
};

/** Attempts in all on the schedule: the first, then one after each retry delay. */
export const scheduledAttempts = (retryDelaysMs: number[]) => retryDelaysMs.length + 1;

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
 * The state after attempt number `attempt` (1-based) of a delivery in `status`. A manual retry
 * schedules nothing after itself. Throws for a transition the table does not have.
 */
export function afterAttempt(
  status: DeliveryStatus,
  attempt: number,
  result: AttemptResult,
  at: Date,
  retryDelaysMs: number[],
  manual = false,
): NextDeliveryState {
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const delayMs = manual ? undefined : retryDelaysMs[attempt - 1];
  const outcome: AttemptOutcome = delivered
    ? 'delivered'
    : delayMs !== undefined
      ? 'failed_with_attempts_left'
      : 'failed_finally';
  const next = DELIVERY_TRANSITIONS[status][outcome];
  if (!next) throw new Error(`no delivery transition from ${status} on ${outcome}`);
  return { status: next, nextAttemptAt: next === 'RETRYING' ? new Date(at.getTime() + delayMs!) : null };
}
