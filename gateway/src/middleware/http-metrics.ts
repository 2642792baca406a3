import type { Request, RequestHandler, Response } from 'express';
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

/**
 * The path of the route that matched, its parameters filled in from the request: the same
 * route whatever the letter case or trailing slash of the URL (Express matches both). The URL's
 * own path where no route of ours matched.
 */
export function matchedRoutePath(req: Request, res: Response): string {
  const template = res.locals.routeTemplate as string | undefined;
  if (!template) return req.originalUrl.split('?')[0];
  return template.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(req.params[name] ?? '')));
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
