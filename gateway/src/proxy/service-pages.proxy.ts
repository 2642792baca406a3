import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from '@billing/platform';

/** The hosted checkout pages (`/checkout/{code}...`), owned by catalog, passed through untouched. */
export function checkoutProxy(catalogHttpUrl: string, logger: Logger): RequestHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: catalogHttpUrl,
    // Reused connections: without them each request opens a socket to catalog and passes its
    // `connection: close` back to the browser.
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    pathFilter: (path) => /^\/checkout\/[^/]+/.test(path),
    xfwd: true,
    proxyTimeout: 30_000,
    on: {
      error(err, _req, res) {
        logger.warn({ err }, 'catalog pages unreachable');
        const response = res as ServerResponse;
        if (!response.headersSent) {
          response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          response.end(JSON.stringify({ detail: 'The checkout service is temporarily unavailable' }));
        }
      },
    },
  }) as unknown as RequestHandler;
}
