import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from '@billing/testing';

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
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>Merchant</title><h1>Merchant page ${req.url}</h1>`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${port}`;
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

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
