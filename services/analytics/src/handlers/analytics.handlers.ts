import { DomainError, requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import type { analyticsV1 } from '@billing/proto';
import type { AnalyticsDeps } from '../analytics-deps';
import { getMrrSeries } from '../usecases/mrr/get-mrr-series.usecase';
import { getRevenueSeries } from '../usecases/revenue/get-revenue-series.usecase';
import { getSummary } from '../usecases/summary/get-summary.usecase';
import { advanceTestClock } from '../usecases/test-clocks/advance-test-clock.usecase';

/** Thin: proto request -> use case -> proto response. */
export function analyticsHandlers(deps: AnalyticsDeps, logger: Logger): analyticsV1.AnalyticsServiceServer {
  const handlers: UnaryHandlers<analyticsV1.AnalyticsServiceServer> = {
    async getMrrSeries(req) {
      const { months, asOf } = await getMrrSeries(deps, requireScope(req.scope), req);
      return { months, asOf: asOf.toISOString() };
    },
    async getRevenueSeries(req) {
      const { months, asOf } = await getRevenueSeries(deps, requireScope(req.scope), req);
      return { months, asOf: asOf.toISOString() };
    },
    async getSummary(req) {
      const { summary, asOf } = await getSummary(deps, requireScope(req.scope), req);
      return { ...summary, asOf: asOf.toISOString() };
    },
    async advanceTestClock(req) {
      const to = new Date(req.to);
      if (!req.projectId) throw new DomainError('invalid_argument', 'project_id is required');
      if (!req.to || Number.isNaN(to.getTime()))
        throw new DomainError('invalid_argument', 'to is not an RFC 3339 time');
      return { now: (await advanceTestClock(deps, req.projectId, to)).toISOString() };
    },
  };
  return unaryService(handlers, logger);
}
