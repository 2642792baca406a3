import type { IncomingMessage } from 'node:http';
import { listenLocally, type LocalEndpoint } from '@billing/testing';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * A stand-in for a merchant's web site and servers: the success/cancel pages a checkout
 * redirects to, and an endpoint that records what is POSTed to it (provider webhooks).
 */
export class MerchantSite {
  readonly received: ReceivedRequest[] = [];
  private endpoint?: LocalEndpoint;
  url = '';

  async start(): Promise<this> {
    this.endpoint = await listenLocally((req, body, res) => {
      this.received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Merchant</title><h1>Merchant page ${req.url}</h1>`);
    });
    this.url = this.endpoint.url;
    return this;
  }

  /** Resolves with the first request whose path matches, waiting up to `ms`. */
  async waitFor(match: (r: ReceivedRequest) => boolean, ms = 10_000): Promise<ReceivedRequest> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('expected request did not arrive');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stop(): Promise<void> {
    await this.endpoint?.close();
  }
}
