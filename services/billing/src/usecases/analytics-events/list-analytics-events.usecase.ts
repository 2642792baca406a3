import { DomainError, type FieldViolation } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import type { AnalyticsEventRow } from '../../db/repositories/analytics-event.repository';

/** The largest page ListAnalyticsEvents answers (proto/billing/v1/billing.proto). */
export const MAX_ANALYTICS_EVENTS_PAGE = 5000;

export interface ListAnalyticsEventsCommand {
  /** 0 for the first page; then the last seq of the previous page. */
  afterSeq: number;
  /** 1..MAX_ANALYTICS_EVENTS_PAGE. */
  limit: number;
}

/**
 * The history the analytics service rebuilds its read model from (docs/api-behaviour.md §25):
 * billing's recorded events that carry analytics facts, in commit order (seq) after `afterSeq`,
 * at most `limit`, each as it was published. A limit outside 1..5000 or a negative after_seq is
 * INVALID_ARGUMENT, saying which.
 */
export function listAnalyticsEvents(
  deps: BillingDeps,
  command: ListAnalyticsEventsCommand,
): Promise<AnalyticsEventRow[]> {
  const violations: FieldViolation[] = [];
  const { afterSeq, limit } = command;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ANALYTICS_EVENTS_PAGE) {
    violations.push({
      loc: ['limit'],
      msg: `Input should be between 1 and ${MAX_ANALYTICS_EVENTS_PAGE}`,
      type: 'value_error',
      input: limit,
    });
  }
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    violations.push({ loc: ['after_seq'], msg: 'Input should be 0 or more', type: 'value_error', input: afterSeq });
  }
  if (violations.length) {
    throw DomainError.invalid(
      violations,
      `limit must be between 1 and ${MAX_ANALYTICS_EVENTS_PAGE} and after_seq 0 or more (got limit ${limit}, after_seq ${afterSeq})`,
    );
  }
  return deps.analyticsEvents.listAfter(afterSeq, limit);
}
