import type { BillingDeps } from '../billing-deps';
import { listAnalyticsEvents } from '../usecases/analytics-events/list-analytics-events.usecase';
import type { BillingHandlers } from './billing-messages';

/**
 * What the analytics service asks of billing (docs/api-behaviour.md §25): the recorded events
 * its read model is rebuilt from. Thin: proto request -> use case -> proto response.
 */
export function analyticsEventHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async listAnalyticsEvents(req) {
      const events = await listAnalyticsEvents(deps, { afterSeq: req.afterSeq, limit: req.limit });
      return { events: events.map((event) => ({ seq: event.seq, envelopeJson: event.envelopeJson })) };
    },
  };
}
