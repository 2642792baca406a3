import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from '@billing/platform';

/** The provider's inbound webhook as merchants configure it at Paystack (contract section 6). */
export const PROVIDER_WEBHOOK_PATH = '/api/v1/payments/paystack/webhook';

/**
 * Pages and callbacks owned by a service, passed through untouched: the hosted checkout
 * (`/checkout/{code}...`) and the provider webhook, whose signature covers the exact raw body,
 * so nothing here may parse it.
 */
export function checkoutProxy(catalogHttpUrl: string, logger: Logger): RequestHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: catalogHttpUrl,
    // Reused connections: without them each request opens a socket to catalog and passes its
    // `connection: close` back, so the provider must reconnect for every webhook too.
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    pathFilter: (path, req) =>
      /^\/checkout\/[^/]+/.test(path) || (req.method === 'POST' && path === PROVIDER_WEBHOOK_PATH),
    pathRewrite: { [`^${PROVIDER_WEBHOOK_PATH}`]: '/payments/paystack/webhook' },
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
