import type { Clock, Logger, ProjectClocks, PromiseClient } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { ReadModelRepository } from './db/repositories/read-model.repository';

/** Everything the service's wiring hands its handlers, its consumer and its rebuild. */
export interface AnalyticsDeps {
  readModel: ReadModelRepository;
  /** The project's clock per mode (analytics' own copy of the test clocks): as_of of every answer. */
  clocks: ProjectClocks;
  /** Real time: when an event was processed. */
  clock: Clock;
  logger: Logger;
}

/** The rebuild also reads billing's history of analytics events (billing.v1 ListAnalyticsEvents). */
export interface RebuildDeps extends AnalyticsDeps {
  billing: Pick<PromiseClient<billingV1.BillingServiceClient>, 'listAnalyticsEvents'>;
}
