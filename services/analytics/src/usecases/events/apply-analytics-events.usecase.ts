import type { EventEnvelope } from '@billing/platform';
import type { AnalyticsDeps } from '../../analytics-deps';
import { applyEvents, type AppliedEvents } from '../../read-model/apply-events';

/**
 * The consumer's use case (docs/api-behaviour.md §25): a batch of billing's events from the
 * stream, applied exactly once; events without analytics facts change nothing. It waits while a
 * rebuild runs (the rebuild lock, taken shared) and then finds the events the rebuild applied
 * already processed.
 */
export function applyAnalyticsEvents(deps: AnalyticsDeps, envelopes: EventEnvelope[]): Promise<AppliedEvents> {
  return applyEvents(deps, envelopes, { shareRebuildLock: true });
}
