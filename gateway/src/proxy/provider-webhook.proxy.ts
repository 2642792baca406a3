import type { RequestHandler } from 'express';
import { Pool } from 'undici';
import type { Logger } from '@billing/platform';

/** The provider's inbound webhook as merchants configure it at Paystack (contract section 6). */
export const PROVIDER_WEBHOOK_PATH = '/api/v1/payments/paystack/webhook';
/** Where catalog, which owns checkout completion, receives it. */
const CATALOG_WEBHOOK_PATH = '/payments/paystack/webhook';
/** Paystack's bodies are a few kilobytes; anything far larger is not a webhook. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface ProviderWebhookForwarder {
  handler: RequestHandler;
  close(): Promise<void>;
}

/**
 * Passes the provider's webhook to catalog byte for byte (its signature covers the exact raw
 * body, so nothing here parses it) and answers with catalog's answer. The provider sends one for
 * every successful charge, renewals included, so this is a lean buffered forward over kept-alive
 * connections rather than the streaming proxy the hosted pages use.
 */
export function providerWebhookForwarder(catalogHttpUrl: string, logger: Logger): ProviderWebhookForwarder {
  const catalog = new Pool(new URL(catalogHttpUrl).origin, {
    connections: 64,
    keepAliveTimeout: 10_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const handler: RequestHandler = (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        if (!refused) answer(res, 413, { detail: 'Webhook body too large' });
        refused = true;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const signature = req.headers['x-paystack-signature'];
      catalog
        .request({
          method: 'POST',
          path: CATALOG_WEBHOOK_PATH,
          headers: {
            'content-type': req.headers['content-type'] ?? 'application/json',
            ...(typeof signature === 'string' ? { 'x-paystack-signature': signature } : {}),
            'x-forwarded-for': req.socket.remoteAddress ?? '',
            'x-request-id': String(res.getHeader('x-request-id') ?? ''),
          },
          body: Buffer.concat(chunks),
        })
        .then(async (response) => {
          const body = await response.body.text();
          res.writeHead(response.statusCode, {
            'content-type': String(response.headers['content-type'] ?? 'application/json'),
          });
          res.end(body);
        })
        .catch((err: unknown) => {
          logger.warn({ err }, 'catalog unreachable for a provider webhook');
          // The provider retries a non-2xx webhook later; nothing is lost.
          if (!res.headersSent) {
            res.setHeader('retry-after', '1');
            answer(res, 503, { detail: 'The checkout service is temporarily unavailable' });
          }
        });
    });
  };
  return { handler, close: () => catalog.close() };
}

function answer(res: Parameters<RequestHandler>[1], status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
