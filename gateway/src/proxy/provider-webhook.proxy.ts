import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener } from 'node:http';
import { Pool } from 'undici';
import { isPostTo, readRawBodyOrRefuse, sendJson, type Logger } from '@billing/platform';

/** The provider's inbound webhook as merchants configure it at Paystack (docs/api-behaviour.md §6). */
export const PROVIDER_WEBHOOK_PATH = '/api/v1/payments/paystack/webhook';
/** Where catalog, which owns checkout completion, receives it. */
const CATALOG_WEBHOOK_PATH = '/payments/paystack/webhook';
/** Paystack's bodies are a few kilobytes; anything far larger is not a webhook. */
const MAX_BODY_BYTES = 1024 * 1024;
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface ProviderWebhookForwarder {
  /** Whether a request is the provider's webhook, which `forward` answers instead of the app. */
  matches(req: IncomingMessage): boolean;
  forward: RequestListener;
  close(): Promise<void>;
}

/**
 * Passes the provider's webhook to catalog byte for byte (its signature covers the exact raw
 * body, so nothing here parses it) and answers with catalog's answer. The provider sends one for
 * every successful charge, renewals included, so this is a lean buffered forward over kept-alive
 * connections rather than the streaming proxy the hosted pages use, and it is answered before
 * the Express app (no auth, no JSON parsing, no routing apply to it).
 */
export function providerWebhookForwarder(catalogHttpUrl: string, logger: Logger): ProviderWebhookForwarder {
  const catalog = new Pool(new URL(catalogHttpUrl).origin, {
    connections: 64,
    keepAliveTimeout: 10_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });

  const forward = async (req: IncomingMessage, res: Parameters<RequestListener>[1]) => {
    const incomingId = req.headers['x-request-id'];
    const requestId =
      typeof incomingId === 'string' && ACCEPTABLE_REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    res.setHeader('x-request-id', requestId);
    const body = await readRawBodyOrRefuse(req, res, MAX_BODY_BYTES);
    if (!body) return;
    const signature = req.headers['x-paystack-signature'];
    try {
      const response = await catalog.request({
        method: 'POST',
        path: CATALOG_WEBHOOK_PATH,
        headers: {
          'content-type': req.headers['content-type'] ?? 'application/json',
          ...(typeof signature === 'string' ? { 'x-paystack-signature': signature } : {}),
          'x-forwarded-for': req.socket.remoteAddress ?? '',
          'x-request-id': requestId,
        },
        body,
      });
      const answer = await response.body.text();
      res.writeHead(response.statusCode, {
        'content-type': String(response.headers['content-type'] ?? 'application/json'),
      });
      res.end(answer);
    } catch (err) {
      logger.warn({ err, request_id: requestId }, 'catalog unreachable for a provider webhook');
      // The provider retries a non-2xx webhook later; nothing is lost.
      res.setHeader('retry-after', '1');
      sendJson(res, 503, { detail: 'The checkout service is temporarily unavailable' });
    }
  };

  return {
    matches: (req) => isPostTo(req, PROVIDER_WEBHOOK_PATH),
    forward: (req, res) => void forward(req, res),
    close: () => catalog.close(),
  };
}
