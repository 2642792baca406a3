import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from '@billing/platform';

/**
 * Pages a service serves itself, passed through untouched: `paths` of the platform's public
 * address go to `target` (catalog's hosted checkout, documents' hosted invoices and PDFs, the
 * customer portal).
 */
function servicePagesProxy(service: string, target: string, paths: RegExp, logger: Logger): RequestHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    // Reused connections: without them each request opens a socket to the service and passes
    // its `connection: close` back to the browser.
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    pathFilter: (path) => paths.test(path),
    xfwd: true,
    proxyTimeout: 30_000,
    on: {
      error(err, _req, res) {
        logger.warn({ err, service }, 'service pages unreachable');
        const response = res as ServerResponse;
        if (!response.headersSent) {
          response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          response.end(JSON.stringify({ detail: `The ${service} service is temporarily unavailable` }));
        }
      },
    },
  }) as unknown as RequestHandler;
}

/** The hosted checkout pages (`/checkout/{code}...`), owned by catalog. */
export const checkoutProxy = (catalogHttpUrl: string, logger: Logger) =>
  servicePagesProxy('checkout', catalogHttpUrl, /^\/checkout\/[^/]+/, logger);

/**
 * The hosted invoice pages and the PDFs of documents' links (`/i/{token}...`, `/cn/{token}/pdf`),
 * owned by documents (docs/api-behaviour.md §22).
 */
export const documentPagesProxy = (documentsHttpUrl: string, logger: Logger) =>
  servicePagesProxy('documents', documentsHttpUrl, /^\/(i|cn)\/[^/]+/, logger);

/**
 * The customer portal (`/portal/...`: session links, entry links, its pages and forms), owned by
 * portal (docs/api-behaviour.md §24). The API's /api/v1/portal/* routes are the gateway's own.
 */
export const portalPagesProxy = (portalHttpUrl: string, logger: Logger) =>
  servicePagesProxy('portal', portalHttpUrl, /^\/portal(\/|$)/, logger);
