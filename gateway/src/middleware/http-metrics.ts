import type { RequestHandler, Response } from 'express';
import { counter, latencyHistogram } from '@billing/platform';

/** Labels of every HTTP metric: the route's template (never the path with its ids), method, status class. */
const LABELS = ['method', 'route', 'status_class'] as const;

const requests = counter('http_server_requests_total', 'HTTP requests answered by the gateway', LABELS);
const duration = latencyHistogram(
  'http_server_request_duration_seconds',
  'Time from receiving an HTTP request to finishing its answer',
  LABELS,
);

/** Set by the route that matched (mountRoutes): the template, e.g. /api/v1/subscriptions/:id. */
export function markRoute(template: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.routeTemplate = template;
    next();
  };
}

function routeOf(res: Response): string {
  const template = res.locals.routeTemplate as string | undefined;
  if (template) return template;
  // An app-level route (/healthz, /openapi.json); anything else (/docs assets, the checkout
  // pages proxied to catalog, a 404) is one series, so that unknown paths add no series.
  const path = (res.req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : 'other';
}

/** Counts and times every request by route template, method and status class (2xx, 4xx, ...). */
export function httpMetrics(): RequestHandler {
  return (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeOf(res), status_class: `${Math.floor(res.statusCode / 100)}xx` };
      requests.inc(labels);
      end(labels);
    });
    next();
  };
}
